import Foundation
import Quire
import QuireSyncProtocol
import Testing

/// Content-defined chunking: what sync's "a small edit sends a few chunks" rests on.
@Suite("Content-defined chunking")
struct ContentChunkerTests {
  /// Deterministic pseudo-random bytes (incompressible, like photos), from a seed.
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    var result = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      result[index] = UInt8(truncatingIfNeeded: state >> 33)
    }
    return result
  }

  /// The first four chunk lengths of `bytes(2 MiB, seed: 5)` under ``ContentChunker/standard``.
  static let vector = [71_675, 71_834, 70_885, 69_045]

  private func chunks(_ data: [UInt8], _ chunker: ContentChunker = .standard) -> [[UInt8]] {
    chunker.chunkRanges(of: data).map { Array(data[$0]) }
  }

  @Test("chunks cover the bytes in order, within the size limits, about 64 KiB on average")
  func sizes() {
    let data = Self.bytes(16 << 20, seed: 1)
    let chunker = ContentChunker.standard
    let ranges = chunker.chunkRanges(of: data)
    #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == data.count)
    #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upperBound == $1.lowerBound })
    for range in ranges.dropLast() {
      #expect(range.count >= chunker.minimumSize && range.count <= chunker.maximumSize)
    }
    let average = data.count / ranges.count
    #expect(average > 32 << 10 && average < 128 << 10, "average chunk \(average) bytes")
  }

  @Test("100 bytes changed in the middle of 8 MiB change at most two chunks")
  func editInTheMiddle() {
    let original = Self.bytes(8 << 20, seed: 2)
    var edited = original
    for index in 0..<100 { edited[(4 << 20) + index] ^= 0xFF }
    let before = Set(chunks(original))
    let after = chunks(edited)
    let new = after.filter { !before.contains($0) }
    #expect(new.count >= 1 && new.count <= 2, "\(new.count) of \(after.count) chunks changed")
    #expect(new.reduce(0) { $0 + $1.count } <= 512 << 10)
  }

  @Test("bytes inserted at the start shift no later boundary: the rest is the same chunks")
  func insertionAtTheStart() {
    let original = Self.bytes(4 << 20, seed: 3)
    let shifted = Self.bytes(10, seed: 4) + original
    let before = Set(chunks(original))
    let after = chunks(shifted)
    let new = after.filter { !before.contains($0) }
    #expect(new.count <= 2, "\(new.count) of \(after.count) chunks changed")
  }

  @Test("the same bytes are cut the same way every time (the gear table is fixed)")
  func deterministic() {
    let data = Self.bytes(2 << 20, seed: 5)
    let ranges = ContentChunker.standard.chunkRanges(of: data)
    #expect(ranges == ContentChunker.standard.chunkRanges(of: data))
    // A test vector: these are the protocol's cuts of these bytes. A change to the gear table,
    // the masks or the sizes would make old and new devices cut differently and re-send
    // everything; this line fails first.
    #expect(Array(ranges.prefix(4).map(\.count)) == Self.vector)
  }

  @Test("a file read chunk by chunk gives the chunks of the whole file, for any size")
  func fileChunks() throws {
    let folder = try TemporaryDirectory()
    for size in [0, 1, 16 << 10, (256 << 10) + 1, 3 << 20] {
      let data = Self.bytes(size, seed: UInt64(size) + 6)
      let file = folder.file("member-\(size)")
      try Data(data).write(to: file)
      var seen: [(Int64, [UInt8])] = []
      try ContentChunker.standard.forEachChunk(ofFileAt: file.path) { offset, chunk in
        seen.append((offset, Array(chunk)))
      }
      let expected = ContentChunker.standard.chunkRanges(of: data)
      #expect(seen.map { Int($0.0) } == expected.map(\.lowerBound), "size \(size)")
      #expect(seen.map(\.1) == expected.map { Array(data[$0]) }, "size \(size)")
    }
  }

  @Test("a missing file is a notFound error naming it")
  func missingFile() {
    #expect {
      try ContentChunker.standard.forEachChunk(ofFileAt: "/nonexistent/member") { _, _ in }
    } throws: { error in
      (error as? QuireError)?.code == .notFound
        && (error as? QuireError)?.message.contains("/nonexistent/member") == true
    }
  }
}
