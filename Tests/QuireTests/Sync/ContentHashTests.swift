import Crypto
import Foundation
import QuireSyncProtocol
import Testing

/// ``ContentHash`` holds its 32 bytes as words: what a user relies on is that it still reads,
/// writes, compares and orders as the 64 digits it stands for.
@Suite("A content hash is its 64 digits")
struct ContentHashTests {
  /// Deterministic bytes for `seed`.
  static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SplitMix(seed: seed)
    return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
  }

  @Test("digits, bytes and JSON round-trip, and order as the digits do, on many inputs")
  func roundTrips() throws {
    var previous: (hash: ContentHash, hex: String)?
    for seed in UInt64(0)..<2_000 {
      let data = Self.bytes(Int(seed % 97), seed: seed)
      let hash = ContentHash(of: data)
      let expected = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
      #expect(hash.hex == expected)
      #expect(hash.description == expected)
      #expect(hash.bytes == Array(SHA256.hash(data: data)))
      #expect(ContentHash(hex: expected) == hash)
      #expect(ContentHash(bytes: hash.bytes) == hash)
      let json = try JSONEncoder().encode([hash])
      #expect(String(decoding: json, as: UTF8.self) == "[\"\(expected)\"]")
      #expect(try JSONDecoder().decode([ContentHash].self, from: json) == [hash])
      data.withUnsafeBytes { #expect(ContentHash(of: $0) == hash) }
      if let previous {
        #expect((previous.hash < hash) == (previous.hex < expected))
        #expect((previous.hash == hash) == (previous.hex == expected))
        #expect(Set([previous.hash, hash]).count == (previous.hex == expected ? 1 : 2))
      }
      previous = (hash, expected)
    }
  }

  @Test("anything but 64 lowercase hex digits is refused")
  func refusesOtherText() {
    let good = String(repeating: "0123456789abcdef", count: 4)
    #expect(ContentHash(hex: good)?.hex == good)
    for bad in [
      "", String(good.dropLast()), good + "0", good.uppercased(), "g" + good.dropFirst(),
      String(good.dropLast()) + " ", String(repeating: "é", count: 32),
    ] {
      #expect(ContentHash(hex: bad) == nil, "\(bad)")
    }
    #expect(ContentHash(bytes: [UInt8](repeating: 1, count: 31)) == nil)
    #expect(ContentHash(bytes: [UInt8](repeating: 1, count: 33)) == nil)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode([ContentHash].self, from: Data("[\"\(good.uppercased())\"]".utf8))
    }
  }
}
