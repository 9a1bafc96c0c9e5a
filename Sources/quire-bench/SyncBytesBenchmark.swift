import ArgumentParser
import Foundation

/// Bytes on the wire, both directions, counted at the socket, to sync one changed 4 KiB member
/// of a package of many — beside rsync's own count for the same change (the byte floor).
struct SyncBytesBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-bytes",
    abstract: "Count the bytes that sync one changed member of a large package, beside rsync.")

  @Option(help: "Members of the package.") var members = 10_000
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-bytes")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging/Big.mydoc")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    for index in 0..<members {
      try Data(SyncBytesBenchmark.bytes(4096, seed: UInt64(index))).write(
        to: staging.appendingPathComponent("m\(index).bin"))
    }
    let changed = Data(SyncBytesBenchmark.bytes(4096, seed: 999_999_999))

    let place = { (folder: URL) in
      try FileManager.default.copyItem(at: staging, to: folder.appendingPathComponent("Big.mydoc"))
    }
    let placed = { (folder: URL) in
      let package = folder.appendingPathComponent("Big.mydoc").path
      return
        ((try? FileManager.default.contentsOfDirectory(atPath: package))?
        .filter { $0.hasSuffix(".bin") }.count ?? 0) >= members
    }
    let change = { (folder: URL) in
      try changed.write(to: folder.appendingPathComponent("Big.mydoc/m7.bin"), options: .atomic)
    }
    let arrived = { (folder: URL) in
      FileManager.default.contents(atPath: folder.appendingPathComponent("Big.mydoc/m7.bin").path)
        == changed
    }
    var (rows, figures) = try WireBytes.quireAndSyncthing(
      scratch: scratch, place: place, placed: placed, change: change, changed: arrived)
    let result = "RESULT sync-bytes members=\(members) " + figures
    let rsync = try rsyncBytes(staging: staging, changed: changed, scratch: scratch)
    rows.append(["rsync -a", "\(rsync)"])
    Measurement.table(["engine", "bytes"], rows)
    print(result + " rsync_bytes=\(rsync)")
  }

  /// rsync's own count to bring a time-preserving copy up to date after the change.
  private func rsyncBytes(staging: URL, changed: Data, scratch: URL) throws -> Int {
    let copy = scratch.appendingPathComponent("rsync-copy")
    try RsyncPeer.copy(staging, to: copy)
    try changed.write(to: staging.appendingPathComponent("m7.bin"), options: .atomic)
    return try RsyncPeer.bytes(from: staging, to: copy)
  }

  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed &+ 0x9E37_79B9_7F4A_7C15
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }
}
