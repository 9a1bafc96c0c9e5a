/// One chunk of a member's bytes: its hash and its length. A member's chunks, in order, are its
/// bytes.
public struct ChunkReference: Hashable, Codable, Sendable {
  /// The SHA-256 of the chunk's bytes.
  public var hash: ContentHash
  /// The chunk's length in bytes.
  public var size: Int

  /// A chunk of `size` bytes hashing to `hash`.
  public init(hash: ContentHash, size: Int) {
    self.hash = hash
    self.size = size
  }

  private enum CodingKeys: String, CodingKey {
    case hash = "h"
    case size = "n"
  }
}
