/// A list of chunk hashes: `POST /v1/chunks/missing` asks which of them the server lacks for this
/// account and answers with the same shape.
public struct ChunkList: Codable, Sendable {
  /// The hashes.
  public var hashes: [ContentHash]

  /// A list of `hashes`.
  public init(hashes: [ContentHash]) { self.hashes = hashes }
}
