import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A byte range of a file is streamed from the chunks that hold it, a slice at a time: for any
/// chunk sizes and any range, the bytes sent are exactly the file's bytes in that range, and
/// the stated length is theirs.
@Suite("Byte ranges streamed from chunks")
struct ChunkRangeTests {
  @Test("generated files and ranges read back exactly", arguments: 0..<2)
  func generated(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed) + 900)
    let folder = try TemporaryDirectory()
    let blobs = try FolderBlobStore(folder: folder.url)
    for _ in 0..<8 {
      // Chunk sizes around the slice size, so that ranges cross slices as well as chunks.
      let sizes = (0..<Int.random(in: 1...5, using: &random)).map { _ in
        Int.random(in: 1...(ChunkDownload.sliceBytes * 5 / 4), using: &random)
      }
      let chunks = sizes.map { size in Self.bytes(size, using: &random) }
      let (pack, offsets) = try blobs.writePack(chunks.map { $0[...] })
      let whole = ChunkDownload(
        pieces: zip(chunks, offsets).map { chunk, offset in
          (ContentHash(of: chunk), BlobLocation(pack: pack, offset: offset, size: chunk.count))
        }, blobs: blobs, framed: false)
      let contents = chunks.flatMap { $0 }
      for _ in 0..<5 {
        let start = Int.random(in: 0..<contents.count, using: &random)
        let end = Int.random(in: start..<contents.count, using: &random)
        let part = whole.range(from: start, through: end)
        let sent = try part.slices.flatMap { try part.body(of: $0) }
        #expect(part.contentLength == end - start + 1, "\(sizes) \(start)-\(end)")
        #expect(sent.count == end - start + 1, "\(sizes) \(start)-\(end)")
        #expect(
          ContentHash(of: sent) == ContentHash(of: Array(contents[start...end])),
          "\(sizes) \(start)-\(end)")
      }
      let all = whole.range(from: 0, through: contents.count - 1)
      let sent = try all.slices.flatMap { try all.body(of: $0) }
      #expect(ContentHash(of: sent) == ContentHash(of: contents))
      // A fetch: every chunk in its frame, in order.
      var fetch = whole
      fetch.framed = true
      let framed = try fetch.slices.flatMap { try fetch.body(of: $0) }
      #expect(framed.count == fetch.contentLength)
      let frames = try ChunkFrames.parse(framed, maximumChunk: .max)
      #expect(frames.map(\.hash) == chunks.map { ContentHash(of: $0) })
      #expect(frames.map { Array(framed[$0.range]) } == chunks)
    }
  }

  /// `count` random bytes, drawn eight at a time (a byte at a time is slow in a debug build).
  static func bytes(_ count: Int, using random: inout SeededGenerator) -> [UInt8] {
    var words = (0..<(count + 7) / 8).map { _ in random.next() }
    return words.withUnsafeMutableBytes { Array($0.prefix(count)) }
  }
}
