import Foundation
import QuireSyncProtocol
import Testing

/// A chunk sent as a delta of a similar one: rebuilt exactly, a few KiB for a small edit, paired
/// with the chunk it replaced, and refused (typed) when it does not make its chunk.
@Suite("Sync protocol: chunks sent as deltas")
struct ChunkDeltaTests {
  static func random(_ count: Int, using random: inout some RandomNumberGenerator) -> [UInt8] {
    (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }
  }

  /// `base` with a few bytes replaced, inserted or removed somewhere.
  static func edited(_ base: [UInt8], using random: inout some RandomNumberGenerator) -> [UInt8] {
    var bytes = base
    let at = Int.random(in: 0..<bytes.count, using: &random)
    let length = Int.random(in: 1...300, using: &random)
    switch Int.random(in: 0..<3, using: &random) {
    case 0:
      bytes.replaceSubrange(
        at..<min(bytes.count, at + length), with: Self.random(length, using: &random))
    case 1: bytes.insert(contentsOf: Self.random(length, using: &random), at: at)
    default: bytes.removeSubrange(at..<min(bytes.count, at + length))
    }
    return bytes
  }

  @Test("a delta, from the base's bytes or from its block signature, rebuilds the chunk exactly, over 200 generated edits")
  func generated() throws {
    var random = SystemRandomNumberGenerator()
    for _ in 0..<200 {
      let base = Self.random(Int.random(in: 16_384...262_144, using: &random), using: &random)
      let new = Self.edited(base, using: &random)
      let (baseHash, hash) = (ContentHash(of: base), ContentHash(of: new))
      let exact = try #require(
        ChunkDelta.between(base: base, baseHash: baseHash, new: new, hash: hash))
      #expect(exact.bytes.count <= 600)
      #expect(try exact.applied(to: base, maximumSize: 262_144 + 300) == new)
      let signature = ChunkSignatures.Signature(hash: baseHash, bytes: base)
      let blocks = try #require(ChunkDelta.between(signature: signature, new: new, hash: hash))
      #expect(blocks.bytes.count <= 600 + 2 * ChunkSignatures.blockSize)
      #expect(try blocks.applied(to: base, maximumSize: 262_144 + 300) == new)
      let decoded = try JSONDecoder().decode(ChunkDelta.self, from: try JSONEncoder().encode(blocks))
      #expect(decoded == blocks)
    }
  }

  @Test("a delta that does not make its chunk, or keeps bytes outside its base, is refused as badChunk; an unlike chunk goes whole")
  func refused() throws {
    var random = SystemRandomNumberGenerator()
    let base = Self.random(65_536, using: &random)
    let new = Self.edited(base, using: &random)
    let delta = try #require(
      ChunkDelta.between(
        base: base, baseHash: ContentHash(of: base), new: new, hash: ContentHash(of: new)))
    func expectBad(_ body: () throws -> Void) {
      #expect {
        try body()
      } throws: { ($0 as? SyncError)?.code == .badChunk }
    }
    expectBad { _ = try delta.applied(to: Self.edited(base, using: &random), maximumSize: 1 << 20) }
    for (prefix, suffix) in [(-1, 0), (0, -1), (70_000, 0), (40_000, 40_000), (Int.max, Int.max)] {
      var bad = delta
      (bad.prefix, bad.suffix) = (prefix, suffix)
      expectBad { _ = try bad.applied(to: base, maximumSize: 1 << 20) }
    }
    expectBad { _ = try delta.applied(to: base, maximumSize: 1_000) }
    let other = Self.random(65_536, using: &random)
    #expect(
      ChunkDelta.between(
        base: base, baseHash: ContentHash(of: base), new: other, hash: ContentHash(of: other))
        == nil)
  }

  @Test("each new chunk is paired with the base chunk at the same place; chunks the base holds are not")
  func pairs() {
    let chunk = { (name: String, size: Int) in
      ChunkReference(hash: ContentHash(of: Array(name.utf8)), size: size)
    }
    let base = [chunk("a", 100), chunk("b", 200), chunk("c", 300), chunk("d", 50)]
    // b replaced in place; c grown and split; d kept.
    let new = [chunk("a", 100), chunk("b2", 200), chunk("c2", 180), chunk("c3", 170), chunk("d", 50)]
    let pairs = ChunkDelta.pairs(new: new, base: base)
    #expect(pairs.map(\.chunk) == [new[1].hash, new[2].hash, new[3].hash])
    #expect(pairs.map(\.base) == [base[1].hash, base[2].hash, base[2].hash])
    #expect(ChunkDelta.pairs(new: new, base: []).isEmpty)
  }
}
