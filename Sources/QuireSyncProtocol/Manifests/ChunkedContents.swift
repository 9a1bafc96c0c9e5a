/// Some bytes cut into chunks as every device cuts them, with their hashes: what a device uploads
/// and lists in a ``ManifestMember``.
public struct ChunkedContents: Sendable {
  /// The whole contents' SHA-256.
  public let hash: ContentHash
  /// The chunks, in order.
  public let chunks: [ChunkReference]
  /// The chunks' bytes, by position in ``chunks``.
  public let ranges: [Range<Int>]
  /// The bytes.
  public let bytes: [UInt8]

  /// Cuts and hashes `bytes` with the standard ``ContentChunker``.
  public init(_ bytes: [UInt8]) {
    self.bytes = bytes
    hash = ContentHash(of: bytes)
    let ranges = ContentChunker.standard.chunkRanges(of: bytes)
    self.ranges = ranges
    chunks = bytes.withUnsafeBytes { buffer in
      ranges.map {
        ChunkReference(
          hash: ContentHash(of: UnsafeRawBufferPointer(rebasing: buffer[$0])), size: $0.count)
      }
    }
  }

  /// A manifest member at `path` with these contents.
  public func member(path: String, mode: Int = 0o644, modified: Double = 0) -> ManifestMember {
    ManifestMember(
      path: path, size: bytes.count, mode: mode, modified: modified, hash: hash, chunks: chunks)
  }

  /// Each chunk's hash and bytes, for upload.
  public var uploads: [(hash: ContentHash, bytes: [UInt8])] {
    zip(chunks, ranges).map { ($0.hash, Array(bytes[$1])) }
  }
}
