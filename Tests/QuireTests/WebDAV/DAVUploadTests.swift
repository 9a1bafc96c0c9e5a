import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A PUT's body cut into chunks as it arrives: whatever pieces the network delivers, the
/// chunks, hashes and size are those a device computes for the whole file, the frames stored
/// carry exactly those bytes, and no batch held much more than ``DAVUpload/batchBytes``.
@Suite("WebDAV uploads, chunked as they arrive")
struct DAVUploadTests {
  @Test("any split of any body chunks as the whole file does", arguments: 0..<6)
  func chunksAsTheWholeFile(seed: Int) throws {
    var random = SeededGenerator(seed: UInt64(seed))
    let sizes = [0, 1, 16 << 10, 256 << 10, 1 << 20, 3 << 20 + 12_345]
    let size = sizes[seed % sizes.count]
    // Runs of repeated bytes as well as noise, so that chunks are cut at every kind of place.
    var bytes: [UInt8] = []
    while bytes.count < size {
      let run = min(Int.random(in: 1...70_000, using: &random), size - bytes.count)
      if Bool.random(using: &random) {
        bytes += (0..<run).map { _ in UInt8.random(in: 0...255, using: &random) }
      } else {
        bytes += [UInt8](repeating: UInt8.random(in: 0...255, using: &random), count: run)
      }
    }
    let batch = 512 << 10
    var stored: [UInt8] = []
    var largest = 0
    var upload = DAVUpload(batchBytes: batch) { frames throws(DAVError) in
      largest = max(largest, frames.count)
      stored += frames
    }
    var offset = 0
    while offset < bytes.count {
      let piece = min(Int.random(in: 0...200_000, using: &random), bytes.count - offset)
      try upload.append(bytes[offset..<offset + piece])
      offset += piece
    }
    let contents = try upload.finish()
    let whole = ChunkedContents(bytes)
    #expect(contents.hash == whole.hash && contents.size == bytes.count)
    #expect(contents.chunks == whole.chunks)
    let frames = try ChunkFrames.parse(stored, maximumChunk: ContentChunker.standard.maximumSize)
    #expect(frames.map(\.hash) == whole.chunks.map(\.hash))
    #expect(frames.flatMap { Array(stored[$0.range]) } == bytes)
    let frameBytes = ContentChunker.standard.maximumSize + ChunkFrames.headerSize
    #expect(largest < batch + frameBytes * 2, "a batch of \(largest) bytes")
  }
}
