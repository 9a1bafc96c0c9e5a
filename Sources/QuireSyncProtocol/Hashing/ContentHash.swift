import Crypto
import Foundation

/// The SHA-256 of some bytes, as 64 lowercase hexadecimal digits: the address of a chunk, and the
/// identity of a member's contents.
///
/// A server never trusts a hash it is told: it hashes the bytes it receives and refuses a chunk
/// whose bytes do not match.
public struct ContentHash: Hashable, Comparable, Codable, Sendable, CustomStringConvertible {
  /// The 64 hexadecimal digits.
  public let hex: String

  /// The hash in `hex`, or nil if it is not 64 lowercase hexadecimal digits.
  public init?(hex: String) {
    guard hex.utf8.count == 64,
      hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
    else { return nil }
    self.hex = hex
  }

  /// The hash of `bytes`.
  public init(of bytes: some DataProtocol) {
    hex = Self.hex(SHA256.hash(data: bytes))
  }

  /// The hash of the bytes `buffer` points at.
  public init(of buffer: UnsafeRawBufferPointer) {
    hex = Self.hex(SHA256.hash(data: buffer))
  }

  /// The 32 raw bytes.
  public var bytes: [UInt8] {
    var out = [UInt8]()
    out.reserveCapacity(32)
    var iterator = hex.utf8.makeIterator()
    while let high = iterator.next(), let low = iterator.next() {
      out.append(Self.nibble(high) << 4 | Self.nibble(low))
    }
    return out
  }

  /// The hash of 32 raw bytes.
  public init?(bytes: some Collection<UInt8>) {
    guard bytes.count == 32 else { return nil }
    let digits = Array("0123456789abcdef".utf8)
    var text = [UInt8]()
    text.reserveCapacity(64)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 15)])
    }
    hex = String(decoding: text, as: UTF8.self)
  }

  /// The hexadecimal digits.
  public var description: String { hex }

  /// Orders hashes by their digits.
  public static func < (lhs: ContentHash, rhs: ContentHash) -> Bool { lhs.hex < rhs.hex }

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

  private static func hex(_ digest: SHA256.Digest) -> String {
    ContentHash(bytes: Array(digest))!.hex
  }

  private static func nibble(_ digit: UInt8) -> UInt8 {
    digit <= 0x39 ? digit - 0x30 : digit - 0x61 + 10
  }
}
