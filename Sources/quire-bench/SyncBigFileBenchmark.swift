import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One big file synced from device A to B: the time from its move into A's folder until B holds
/// all of it, and the peak memory of both agents and the server on the way, beside rsync copying
/// the same file whole (`-W`).
struct SyncBigFileBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-big-file",
    abstract: "Time one big file from device A to B, and the peak memory it takes, beside rsync.")

  @Option(help: "Size of the file in MiB.") var mib = 1024
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-big-file")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    let file = staging.appendingPathComponent("Big.bin")
    let size = mib << 20
    try Self.write(size, to: file)
    let sample = try Self.samples(of: file, size: size)

    let copy = scratch.appendingPathComponent("rsync-copy")
    try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
    let rsync = try RsyncPeer.milliseconds(copying: file, into: copy)
    try FileManager.default.removeItem(at: copy)
    // The same copy made durable, for reference (no target): a synced file is fsynced on the
    // server and on the receiving device before it counts as synced.
    try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
    let rsyncDurable = try RsyncPeer.milliseconds(copying: file, into: copy, durable: true)
    try FileManager.default.removeItem(at: copy)

    let rig = try SyncRig(scratch: scratch.appendingPathComponent("rig"))
    defer { rig.stop() }
    let idle = rig.peakMemoryMiB
    let arrived = rig.b.appendingPathComponent("Big.bin")
    var complete = false
    let quire = try Measurement.milliseconds {
      try FileManager.default.moveItem(at: file, to: rig.a.appendingPathComponent("Big.bin"))
      complete = SyncRig.waitFor(seconds: 900, every: .milliseconds(10)) {
        (try? FileManager.default.attributesOfItem(atPath: arrived.path)[.size] as? Int) == size
      }
    }
    let peak = rig.peakMemoryMiB
    guard complete, try Self.samples(of: arrived, size: size) == sample else {
      throw RawFiles.Failure(description: "device B does not hold the whole file")
    }
    let agents = max(peak.a, peak.b)
    Measurement.table(
      ["engine", "ms", "peak memory MiB (idle)"],
      [
        ["Quire Sync", Measurement.format(quire), ""],
        ["  agent A", "", "\(Measurement.format(peak.a)) (\(Measurement.format(idle.a)))"],
        ["  agent B", "", "\(Measurement.format(peak.b)) (\(Measurement.format(idle.b)))"],
        [
          "  server", "", "\(Measurement.format(peak.server)) (\(Measurement.format(idle.server)))",
        ],
        ["rsync -a -W", Measurement.format(rsync), ""],
        ["rsync -a -W --fsync", Measurement.format(rsyncDurable), ""],
      ])
    print(
      "RESULT sync-big-file mib=\(mib) quire_ms=\(Measurement.format(quire))"
        + " rsync_ms=\(Measurement.format(rsync)) agent_rss_mib=\(Measurement.format(agents))"
        + " server_rss_mib=\(Measurement.format(peak.server))"
        + " rsync_fsync_ms=\(Measurement.format(rsyncDurable))")
  }

  /// Writes `size` pseudo-random bytes (no chunk repeats) to `url`, 1 MiB at a time.
  static func write(_ size: Int, to url: URL) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw RawFiles.Failure(description: "could not create \(url.path)")
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var piece = [UInt64](repeating: 0, count: (1 << 20) / 8)
    for _ in 0..<(size >> 20) {
      for index in piece.indices {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        piece[index] = state ^ (state >> 29)
      }
      try piece.withUnsafeBytes { try handle.write(contentsOf: Data($0)) }
    }
  }

  /// 4 KiB at the start, in the middle and at the end of the file at `url`.
  static func samples(of url: URL, size: Int) throws -> [Data?] {
    [0, size / 2, size - 4096].map {
      SyncLargeEditBenchmark.read(url, at: $0, count: 4096)
    }
  }
}
