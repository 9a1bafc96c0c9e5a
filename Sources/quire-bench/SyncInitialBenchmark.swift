import ArgumentParser
import Foundation

/// The first sync of many small files: a folder of them moved into device A's synced folder,
/// timed until device B holds every one — beside rsync copying the same folder.
struct SyncInitialBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-initial",
    abstract: "Time the first sync of many 4 KiB files from device A to B, beside rsync.")

  @Option(help: "Files to sync.") var files = 10_000
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-initial")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging/Files")
    try Self.makeFiles(files, in: staging)

    let rsyncTarget = scratch.appendingPathComponent("rsync-copy")
    let rsync = try RsyncPeer.milliseconds(from: staging, to: rsyncTarget)

    let rig = try SyncRig(scratch: scratch.appendingPathComponent("rig"))
    defer { rig.stop() }
    let arrived = rig.b.appendingPathComponent("Files")
    var complete = false
    let quire = try Measurement.milliseconds {
      try FileManager.default.moveItem(at: staging, to: rig.a.appendingPathComponent("Files"))
      complete = SyncRig.waitFor(seconds: 600, every: .milliseconds(10)) {
        Self.count(arrived) >= files
      }
    }
    guard complete else {
      throw RawFiles.Failure(description: "only \(Self.count(arrived)) files reached device B")
    }
    Measurement.table(
      ["engine", "ms"],
      [["Quire Sync", Measurement.format(quire)], ["rsync -a", Measurement.format(rsync)]])
    print(
      "RESULT sync-initial files=\(files) quire_ms=\(Measurement.format(quire)) rsync_ms=\(Measurement.format(rsync))"
    )
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

  /// How many files are under `folder` (the hidden staging names of a download not counted).
  static func count(_ folder: URL) -> Int {
    guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
    var files = 0
    while let path = walker.nextObject() as? String {
      if path.hasSuffix(".txt") && !path.contains("/.") { files += 1 }
    }
    return files
  }
}
