import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Bytes on the wire, both directions, counted at the socket, to sync 100 bytes changed in the
/// middle of one large member — beside rsync's delta algorithm on the same change.
struct SyncLargeEditBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-large-edit",
    abstract: "Count the bytes that sync 100 bytes changed inside a large member, beside rsync.")

  @Option(help: "Size of the member in MiB.") var mib = 256
  @Option(help: "Folder for the files (default: the temporary folder).") var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-large-edit")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let staging = scratch.appendingPathComponent("staging")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    let size = mib << 20
    let bytes = Self.bytes(size)
    let file = staging.appendingPathComponent("Large.bin")
    try bytes.write(to: file)

    let middle = size / 2
    let edit = Data((0..<100).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) })
    var edited = bytes
    edited.replaceSubrange(middle..<middle + 100, with: edit)
    let place = { (folder: URL) in
      try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent("Large.bin"))
    }
    let placed = { (folder: URL) in
      Self.tail(of: folder.appendingPathComponent("Large.bin"), equals: bytes)
    }
    let change = { (folder: URL) in
      try edited.write(to: folder.appendingPathComponent("Large.bin"), options: .atomic)
    }
    let changed = { (folder: URL) in
      Self.read(folder.appendingPathComponent("Large.bin"), at: middle, count: 100) == edit
    }
    var (rows, figures) = try WireBytes.quireAndSyncthing(
      scratch: scratch, place: place, placed: placed, change: change, changed: changed)
    let result = "RESULT sync-large-edit mib=\(mib) " + figures
    let copy = scratch.appendingPathComponent("rsync-copy")
    try RsyncPeer.copy(staging, to: copy)
    try edited.write(to: file, options: .atomic)
    let rsync = try RsyncPeer.bytes(from: staging, to: copy, arguments: ["--no-whole-file"])
    rows.append(["rsync -a --no-whole-file", "\(rsync)"])
    Measurement.table(["engine", "bytes"], rows)
    print(result + " rsync_bytes=\(rsync)")
  }

  /// `count` pseudo-random bytes that do not compress or repeat (so no chunk is shared).
  static func bytes(_ count: Int) -> Data {
    var data = Data(count: count)
    data.withUnsafeMutableBytes { buffer in
      let words = buffer.bindMemory(to: UInt64.self)
      var state: UInt64 = 0x9E37_79B9_7F4A_7C15
      for index in words.indices {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        words[index] = state ^ (state >> 29)
      }
    }
    return data
  }

  /// Whether `url` is as long as `bytes` and ends with the same 4 KiB.
  static func tail(of url: URL, equals bytes: Data) -> Bool {
    read(url, at: bytes.count - 4096, count: 4096) == bytes.suffix(4096)
      && ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        == bytes.count)
  }

  /// `count` bytes of `url` at `offset`, or nil.
  static func read(_ url: URL, at offset: Int, count: Int) -> Data? {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
    defer { try? handle.close() }
    try? handle.seek(toOffset: UInt64(offset))
    return try? handle.read(upToCount: count)
  }
}
