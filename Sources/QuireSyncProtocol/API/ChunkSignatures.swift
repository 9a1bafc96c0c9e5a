import Foundation

/// What a device knows of chunks the server holds and it does not, to send a similar chunk as a
/// ``ChunkDelta`` (`POST /v1/chunks/signatures`): each chunk's size and a short hash of each
/// block of ``blockSize`` bytes, counted from its start and from its end.
public struct ChunkSignatures: Codable, Sendable {
  /// The block size.
  public static let blockSize = 2048
  /// The most chunks one request may ask about.
  public static let maximumCount = 64

  /// One chunk's blocks.
  public struct Signature: Codable, Sendable {
    /// The chunk.
    public var hash: ContentHash
    /// Its size in bytes.
    public var size: Int
    /// The first 8 bytes of the SHA-256 of each whole block from the start, in order.
    public var head: [UInt64]
    /// The same of each whole block from the end, the last block first.
    public var tail: [UInt64]

    /// The signature of `bytes`, which hash to `hash`.
    public init(hash: ContentHash, bytes: [UInt8]) {
      self.hash = hash
      size = bytes.count
      head = ChunkSignatures.blocks(of: bytes, fromEnd: false)
      tail = ChunkSignatures.blocks(of: bytes, fromEnd: true)
    }
  }

  /// The chunks the server holds of those asked about.
  public var signatures: [Signature]

  /// A list of `signatures`.
  public init(signatures: [Signature]) { self.signatures = signatures }

  /// The short hash of each whole block of `bytes`, from the start, or from the end (the last
  /// block first).
  public static func blocks(of bytes: [UInt8], fromEnd: Bool) -> [UInt64] {
    let count = bytes.count / blockSize
    return (0..<count).map { index in
      let start = fromEnd ? bytes.count - (index + 1) * blockSize : index * blockSize
      let digest = ContentHash(of: bytes[start..<start + blockSize]).bytes
      return digest[0..<8].reduce(0) { $0 << 8 | UInt64($1) }
    }
  }
}
