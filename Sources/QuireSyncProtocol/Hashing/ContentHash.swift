import Crypto
import Foundation

/// The SHA-256 of some bytes, as 64 lowercase hexadecimal digits: the address of a chunk, and the
/// identity of a member's contents.
///
/// A server never trusts a hash it is told: it hashes the bytes it receives and refuses a chunk
/// whose bytes do not match.
///
/// The 32 bytes are held inline, as four words, not as the text of their digits: an agent keeps
/// two hashes for each file it has synced (the member's and its chunk's), and a hundred thousand
/// files held 22 MB of digit strings (a heap allocation of 112 bytes each) where 6 MB of words
/// say the same.
public struct ContentHash: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
  /// The digest's bytes 0–7, 8–15, 16–23 and 24–31, each read big-endian: ordered as words,
  /// hashes order as their digits do.
  private let words: (UInt64, UInt64, UInt64, UInt64)

  /// The 64 hexadecimal digits.
  public var hex: String {
    String(unsafeUninitializedCapacity: 64) { text in
      for index in 0..<64 {
        let nibble = Int((word(index / 16) >> UInt64(60 - index % 16 * 4)) & 15)
        text[index] = nibble < 10 ? UInt8(0x30 + nibble) : UInt8(0x61 + nibble - 10)
      }
      return 64
    }
  }

  /// The hash in `hex`, or nil if it is not 64 lowercase hexadecimal digits.
  public init?(hex: String) {
    guard hex.utf8.count == 64 else { return nil }
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    for (index, digit) in hex.utf8.enumerated() {
      let value: UInt8
      switch digit {
      case 0x30...0x39: value = digit - 0x30
      case 0x61...0x66: value = digit - 0x61 + 10
      default: return nil
      }
      Self.shift(UInt64(value), bits: 4, into: &words, word: index / 16)
    }
    self.words = words
  }

  /// The hash of `bytes`.
  public init(of bytes: some DataProtocol) {
    self.init(digest: SHA256.hash(data: bytes))
  }

  /// The hash of the bytes `buffer` points at.
  public init(of buffer: UnsafeRawBufferPointer) {
    self.init(digest: SHA256.hash(data: buffer))
  }

  private init(digest: SHA256.Digest) {
    self = digest.withUnsafeBytes { ContentHash(bytes: $0)! }
  }

  /// The 32 raw bytes.
  public var bytes: [UInt8] {
    (0..<32).map { UInt8(truncatingIfNeeded: word($0 / 8) >> UInt64(56 - $0 % 8 * 8)) }
  }

  /// The hash of 32 raw bytes.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 32 else { return nil }
    var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    for (index, byte) in bytes.enumerated() {
      Self.shift(UInt64(byte), bits: 8, into: &words, word: index / 8)
    }
    self.words = words
  }

  /// The word at `index` (0 to 3).
  private func word(_ index: Int) -> UInt64 {
    switch index {
    case 0: words.0
    case 1: words.1
    case 2: words.2
    default: words.3
    }
  }

  /// Appends `bits` bits of `value` to the low end of word `word` of `words`.
  private static func shift(
    _ value: UInt64, bits: UInt64, into words: inout (UInt64, UInt64, UInt64, UInt64), word: Int
  ) {
    switch word {
    case 0: words.0 = words.0 << bits | value
    case 1: words.1 = words.1 << bits | value
    case 2: words.2 = words.2 << bits | value
    default: words.3 = words.3 << bits | value
    }
  }

  /// The hexadecimal digits.
  public var description: String { hex }

  /// Whether both are the hash of the same bytes.
  public static func == (lhs: ContentHash, rhs: ContentHash) -> Bool {
    lhs.words == rhs.words
  }

  /// Feeds the 32 bytes to `hasher`.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(words.0)
    hasher.combine(words.1)
    hasher.combine(words.2)
    hasher.combine(words.3)
  }

  /// Orders hashes by their digits.
  public static func < (lhs: ContentHash, rhs: ContentHash) -> Bool { lhs.words < rhs.words }

  /// Decodes the 64 digits, refusing anything else.
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let hash = ContentHash(hex: text) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath,
          debugDescription: "“\(text.prefix(80))” is not a SHA-256 hash (64 lowercase hex digits)"))
    }
    self = hash
  }

  /// Encodes the 64 digits.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(hex)
  }
}
