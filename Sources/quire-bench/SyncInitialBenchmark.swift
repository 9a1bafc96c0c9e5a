import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The first sync of many small files: a folder of them moved into device A's synced folder,
/// timed until device B holds every one — beside rsync copying the same folder. With
/// `--download on-demand`, timed until device B shows every one as a placeholder
/// (`placeholders_ms`), the files' bytes staying in the cloud until read.
struct SyncInitialBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-initial",
    abstract: "Time the first sync of many 4 KiB files from device A to B, beside rsync.")

  @Option(help: "Files to sync.") var files = 10_000
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?
  @Option(help: "What device B downloads: all, or on-demand (placeholders only).")
  var download = "all"

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-initial")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging/Files")
    try Self.makeFiles(files, in: staging)

    let rsyncTarget = scratch.appendingPathComponent("rsync-copy")
    let rsync = try RsyncPeer.milliseconds(from: staging, to: rsyncTarget)

    guard download == "all" || download == "on-demand" else {
      throw ValidationError("--download is all or on-demand, not \(download)")
    }
    let placeholders = download == "on-demand"
    let rig = try SyncRig(
      scratch: scratch.appendingPathComponent("rig"),
      bArguments: placeholders ? ["--download", "on-demand"] : [])
    let quire = try Self.time(until: rig.b, files: files, placeholders: placeholders) {
      try FileManager.default.moveItem(at: staging, to: rig.a.appendingPathComponent("Files"))
    }
    if placeholders {
      // A device that joins a drive already holding every file: the time until it shows them.
      // A and B are stopped first: on other machines, their own catching up (B recording its
      // last pages, A reading its own commits back) would not take the joining device's cores.
      rig.stopDevices()
      var joining: (folder: URL, agent: Process)?
      let joined = try Self.time(
        until: rig.root.appendingPathComponent("C/Documents"), files: files, placeholders: true
      ) { joining = try rig.addDevice("C", arguments: ["--download", "on-demand"]) }
      let agentMemory = Measurement.peakMemoryMiB(of: joining!.agent.processIdentifier)
      rig.stop()
      Measurement.table(
        ["engine", "ms"],
        [
          ["Quire Sync, A's upload to placeholders on B", Measurement.format(quire)],
          ["Quire Sync, placeholders on a device joining", Measurement.format(joined)],
          ["rsync -a", Measurement.format(rsync)],
        ])
      print("joining agent's peak resident memory: \(Measurement.format(agentMemory)) MiB")
      print(
        "RESULT sync-initial files=\(files) download=on-demand placeholders_ms=\(Measurement.format(joined))"
          + " upload_ms=\(Measurement.format(quire)) agent_rss_mib=\(Measurement.format(agentMemory))"
          + " rsync_ms=\(Measurement.format(rsync))")
      return
    }
    let agentMemory = rig.peakMemoryMiB.b
    rig.stop()
    var rows = [["Quire Sync", Measurement.format(quire)]]
    var result =
      "RESULT sync-initial files=\(files) quire_ms=\(Measurement.format(quire))"
      + " agent_rss_mib=\(Measurement.format(agentMemory))"
    if SyncthingPeer.isInstalled {
      try Self.makeFiles(files, in: staging)
      let peer = try SyncthingPeer(
        scratch: scratch.appendingPathComponent("syncthing"), watcherDelay: 1)
      defer { peer.stop() }
      let syncthing = try Self.time(until: peer.b, files: files) {
        try FileManager.default.moveItem(at: staging, to: peer.a.appendingPathComponent("Files"))
      }
      rows.append(["Syncthing (fsWatcherDelayS=1)", Measurement.format(syncthing)])
      result += " syncthing_ms=\(Measurement.format(syncthing))"
    }
    rows.append(["rsync -a", Measurement.format(rsync)])
    Measurement.table(["engine", "ms"], rows)
    print("receiving agent's peak resident memory: \(Measurement.format(agentMemory)) MiB")
    print(result + " rsync_ms=\(Measurement.format(rsync))")
  }

  /// Milliseconds from `starting` (moving the files into a synced folder, or starting a device)
  /// until `target` holds `files` (or, with `placeholders`, a placeholder of each) in `Files`.
  static func time(
    until target: URL, files: Int, placeholders: Bool = false, starting: () throws -> Void
  ) throws -> Double {
    let arrived = target.appendingPathComponent("Files")
    var complete = false
    // The wait counts only the subfolders not yet full: a walk of all 10 000 files every 10 ms
    // would take a good part of a core from the engines it times.
    var full: Set<String> = []
    var inFull = 0
    let milliseconds = try Measurement.milliseconds {
      try starting()
      complete = SyncRig.waitFor(seconds: 900, every: .milliseconds(10)) {
        var total = inFull
        let subfolders = (try? FileManager.default.contentsOfDirectory(atPath: arrived.path)) ?? []
        for name in subfolders where !name.hasPrefix(".") && !full.contains(name) {
          let found = names(
            in: arrived.appendingPathComponent(name).path, placeholders: placeholders)
          total += found
          if found >= 100 {
            full.insert(name)
            inFull += found
          }
        }
        return total >= files
      }
    }
    guard complete else {
      throw RawFiles.Failure(description: "only \(count(arrived)) files reached device B")
    }
    return milliseconds
  }

  /// `count` files of 4 KiB in `folder`, 100 to a subfolder.
  static func makeFiles(_ count: Int, in folder: URL) throws {
    for index in 0..<count {
      let subfolder = folder.appendingPathComponent("d\(index / 100)")
      if index % 100 == 0 {
        try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
      }
      try Data(SyncBytesBenchmark.bytes(4096, seed: UInt64(index))).write(
        to: subfolder.appendingPathComponent("f\(index).txt"))
    }
  }

  /// How many files named `*.txt` one folder holds (hidden staging names not counted), or with
  /// `placeholders` how many placeholders of them (`.NAME.txt.icloud`), read
  /// with `readdir` alone. The wait runs every 10 ms beside the engines it times, and
  /// `FileManager`'s walker, which stats every entry and rewrites every path, took a sixth of
  /// a core from Quire's agents and server, and most of one while Syncthing ran (profiled).
  static func names(in folder: String, placeholders: Bool = false) -> Int {
    guard let directory = opendir(folder) else { return 0 }
    defer { closedir(directory) }
    var files = 0
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) {
        String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
      }
      if placeholders {
        if name.hasSuffix(".txt.icloud") && name.hasPrefix(".") { files += 1 }
      } else if name.hasSuffix(".txt") && !name.hasPrefix(".") {
        files += 1
      }
    }
    return files
  }

  /// How many files are under `folder` (the hidden staging names of a download not counted).
  static func count(_ folder: URL) -> Int {
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
    var files = 0
    while let path = walker.nextObject() as? String {
      if path.hasSuffix(".txt") && !path.hasPrefix(".") && !path.contains("/.") { files += 1 }
    }
    return files
  }
}
