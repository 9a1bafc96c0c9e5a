/// One member of a revision: a file inside a package (or the one file of a flat document), with
/// what a device needs to write it back exactly.
public struct ManifestMember: Hashable, Codable, Sendable {
  /// The path inside the package (``SyncPath`` rules); empty for a flat document's one member.
  public var path: String
  /// The length in bytes.
  public var size: Int
  /// The permission bits (`0o644`, `0o755`, …).
  public var mode: Int
  /// The modification time, in seconds since 1970.
  public var modified: Double
  /// The SHA-256 of the whole member.
  public var hash: ContentHash
  /// The member's chunks, in order.
  public var chunks: [ChunkReference]

  /// A member at `path`.
  public init(
    path: String, size: Int, mode: Int, modified: Double, hash: ContentHash,
    chunks: [ChunkReference]
  ) {
    self.path = path
    self.size = size
    self.mode = mode
    self.modified = modified
    self.hash = hash
    self.chunks = chunks
  }

  /// Whether the member's contents and attributes equal `other`'s (its path aside).
  public func sameContents(as other: ManifestMember) -> Bool {
    hash == other.hash && size == other.size && mode == other.mode
  }
}
