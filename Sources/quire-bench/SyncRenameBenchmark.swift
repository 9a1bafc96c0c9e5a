import ArgumentParser
import Foundation

/// A big folder's rename: the folder of many small files synced on devices A and B, then
/// renamed with `mv` on A, timed until B holds every file under the new name and none under the
/// old, with the bytes both devices exchanged meanwhile — beside Syncthing's time for the same
/// rename and the bytes rsync sends with `--delete` after it.
struct SyncRenameBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-rename",
    abstract: "Time a rename of a folder of many files from device A to B, beside Syncthing.")

  @Option(help: "Files in the folder.") var files = 10_000
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-rename")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging/Files")

    try SyncInitialBenchmark.makeFiles(files, in: staging)
    let rig = try SyncRig(scratch: scratch.appendingPathComponent("rig"))
    let quire = try Self.rename(a: rig.a, b: rig.b, proxy: rig.proxy, files: files) {
      try FileManager.default.moveItem(at: staging, to: rig.a.appendingPathComponent("Files"))
    }
    rig.stop()
    var rows = [["Quire Sync", Measurement.format(quire.ms), "\(quire.bytes)"]]
    var result =
      "RESULT sync-rename files=\(files) quire_ms=\(Measurement.format(quire.ms))"
      + " quire_bytes=\(quire.bytes)"
    if SyncthingPeer.isInstalled {
      try SyncInitialBenchmark.makeFiles(files, in: staging)
      let peer = try SyncthingPeer(
        scratch: scratch.appendingPathComponent("syncthing"), watcherDelay: 1)
      defer { peer.stop() }
      let syncthing = try Self.rename(a: peer.a, b: peer.b, proxy: peer.proxy, files: files) {
        try FileManager.default.moveItem(at: staging, to: peer.a.appendingPathComponent("Files"))
      }
      rows.append([
        "Syncthing (fsWatcherDelayS=1)", Measurement.format(syncthing.ms), "\(syncthing.bytes)",
      ])
      result += " syncthing_ms=\(Measurement.format(syncthing.ms))"
    }
    let rsync = try rsyncBytes(scratch: scratch)
    rows.append(["rsync -a --delete", "", "\(rsync)"])
    Measurement.table(["engine", "ms", "bytes"], rows)
    print(result + " rsync_bytes=\(rsync)")
  }

  /// Places the folder with `place`, waits until B has it all and the wire is quiet, then
  /// renames it on A and times it until B has it under the new name alone; the bytes are both
  /// directions through `proxy` from the rename until the wire is quiet again.
  static func rename(
    a: URL, b: URL, proxy: ByteCountingProxy, files: Int, place: () throws -> Void
  ) throws -> (ms: Double, bytes: Int) {
    try place()
    guard
      SyncRig.waitFor(
        seconds: 900, every: .milliseconds(50),
        { count(b.appendingPathComponent("Files")) >= files })
    else { throw RawFiles.Failure(description: "the folder never reached device B") }
    proxy.waitQuiet()
    let old = b.appendingPathComponent("Files")
    let new = b.appendingPathComponent("Files 2026")
    var arrived = false
    let milliseconds = try Measurement.milliseconds {
      try FileManager.default.moveItem(
        at: a.appendingPathComponent("Files"), to: a.appendingPathComponent("Files 2026"))
      // Two `stat`s a poll until the new name is there and the old gone; then the files are
      // counted (a rename brings them all at once; a sync item by item, in batches).
      arrived = SyncRig.waitFor(seconds: 600, every: .microseconds(500)) {
        !FileManager.default.fileExists(atPath: old.path)
          && FileManager.default.fileExists(atPath: new.path) && count(new) >= files
      }
    }
    guard arrived else {
      throw RawFiles.Failure(
        description:
          "device B has \(count(new)) files under the new name, \(count(old)) under the old")
    }
    return (milliseconds, proxy.bytesUntilQuiet())
  }

  /// How many files the folder of subfolders `folder` holds (`readdir` alone).
  static func count(_ folder: URL) -> Int {
    let subfolders = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return subfolders.filter { !$0.hasPrefix(".") }.reduce(0) {
      $0 + SyncInitialBenchmark.names(in: folder.appendingPathComponent($1).path)
    }
  }

  /// rsync's own count to bring a time-preserving copy up to date after the same rename, with
  /// `--delete` so the old folder goes: it finds no move, and sends every file again.
  private func rsyncBytes(scratch: URL) throws -> Int {
    let source = scratch.appendingPathComponent("rsync-source")
    try SyncInitialBenchmark.makeFiles(files, in: source.appendingPathComponent("Files"))
    let copy = scratch.appendingPathComponent("rsync-copy")
    try RsyncPeer.copy(source, to: copy)
    try FileManager.default.moveItem(
      at: source.appendingPathComponent("Files"),
      to: source.appendingPathComponent("Files 2026"))
    return try RsyncPeer.bytes(from: source, to: copy, arguments: ["--delete"])
  }
}
