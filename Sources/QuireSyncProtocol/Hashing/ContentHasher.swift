import Crypto

/// Computes a ``ContentHash`` over bytes that arrive in pieces, such as a large member read a
/// chunk at a time, without holding them all.
///
/// ```swift
/// var hasher = ContentHasher()
/// try chunker.forEachChunk(ofFileAt: path) { _, chunk in hasher.update(chunk) }
/// let hash = hasher.finalize()
/// ```
public struct ContentHasher {
  private var sha = SHA256()

  /// A hasher that has seen no bytes yet.
  public init() {}

  /// Adds the bytes `buffer` points at.
  public mutating func update(_ buffer: UnsafeRawBufferPointer) {
    sha.update(bufferPointer: buffer)
  }

  /// The hash of every byte added so far.
  public func finalize() -> ContentHash {
    ContentHash(bytes: Array(sha.finalize()))!
  }
}
