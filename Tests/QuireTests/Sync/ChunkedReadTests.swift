import Foundation
import QuireCore
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// A member's first read for upload cuts and hashes it a window at a time, two hashes side by
/// side on large windows: whatever the sizes and where the windows fall, it must give exactly
/// the chunks, offsets and hash that cutting and hashing the whole member at once gives, since
/// every device must cut the same bytes the same way.
@Suite("A member's first read, a window at a time")
struct ChunkedReadTests {
  @Test(
    "chunks, offsets and the member's hash are those of the whole bytes, at sizes around the window and the parallel threshold"
  )
  func sameAsWhole() throws {
    let folder = try TemporaryDirectory()
    let window = ChunkedRead.window
    let maximum = ContentChunker.standard.maximumSize
    var random = SplitMix(seed: 31)
    let sizes = [
      0, 1, 100, ContentChunker.standard.minimumSize, maximum - 1, maximum, maximum + 1,
      ChunkedRead.parallelBytes - 1, ChunkedRead.parallelBytes + 7, window - 1, window,
      window + 1, window + maximum, 2 * window + maximum + 3, 3 * window + random.below(window),
    ]
    for (index, size) in sizes.enumerated() {
      // Runs of repeated bytes beside random ones: cuts at the maximum size as well as by content.
      var bytes = [UInt8](repeating: 0, count: size)
      var at = 0
      while at < size {
        let run = min(size - at, 1 + random.below(300_000))
        if random.below(3) == 0 {
          let value = UInt8(truncatingIfNeeded: random.next())
          for offset in at..<at + run { bytes[offset] = value }
        } else {
          for offset in at..<at + run { bytes[offset] = UInt8(truncatingIfNeeded: random.next()) }
        }
        at += run
      }
      let file = folder.file("member-\(index)")
      try Data(bytes).write(to: file)
      let ranges = ContentChunker.standard.chunkRanges(of: bytes)
      // Sized for the file, for a file that grew since it was seen, and for any size.
      for expected in [size, size / 3, Int.max] {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        #expect(fd >= 0)
        defer { close(fd) }
        let read = try ChunkedRead(fd: fd, file: file.path, expectedSize: expected)
        let what = "size \(size), expected \(expected)"
        #expect(read.size == size, "\(what)")
        #expect(read.hash == ContentHash(of: bytes), "\(what)")
        #expect(read.offsets == ranges.map { Int64($0.lowerBound) }, "\(what)")
        #expect(
          read.chunks
            == ranges.map { ChunkReference(hash: ContentHash(of: bytes[$0]), size: $0.count) },
          "\(what)")
      }
    }
  }

  @Test("a read that fails is the system's error, naming the call")
  func readFails() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("member")
    try Data(repeating: 7, count: 1000).write(to: file)
    let fd = open(file.path, O_RDONLY | O_CLOEXEC)
    defer { close(fd) }
    #expect(throws: SystemCallError.self) {
      try Sys.$faults.withValue(FaultHook { $0 == "read" ? EIO : nil }) {
        try ChunkedRead(fd: fd, file: file.path)
      }
    }
  }
}
