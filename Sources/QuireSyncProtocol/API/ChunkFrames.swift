/// How chunks travel in bulk (`POST /v1/chunks` up, `POST /v1/chunks/fetch` down): one body of
/// frames, each the chunk's 32-byte SHA-256, its length as 4 bytes big-endian, then its bytes.
/// Thousands of small chunks cost one request, not thousands.
public enum ChunkFrames {
  /// The bytes before each chunk.
  public static let headerSize = 36

  /// Appends the frame of `bytes` (hashing to `hash`) to `body`.
  public static func append(
    hash: ContentHash, bytes: some Collection<UInt8>, to body: inout [UInt8]
  ) {
    body.append(contentsOf: hash.bytes)
    let count = UInt32(bytes.count)
    body.append(contentsOf: [
      UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF),
    ])
    body.append(contentsOf: bytes)
  }

  /// The frames in `body`, in order, each as a hash and the range of its bytes in `body`; throws
  /// ``SyncError/Code/badChunk`` if a frame is cut short or longer than `maximumChunk`. The hashes
  /// are as sent: the caller checks them.
  public static func parse(_ body: [UInt8], maximumChunk: Int) throws(SyncError) -> [(
    hash: ContentHash, range: Range<Int>
  )] {
    var frames: [(hash: ContentHash, range: Range<Int>)] = []
    var offset = 0
    while offset < body.count {
      guard body.count - offset >= headerSize,
        let hash = ContentHash(bytes: body[offset..<offset + 32])
      else { throw SyncError(.badChunk, "A chunk frame is cut short at byte \(offset).") }
      let count = body[offset + 32..<offset + 36].reduce(0) { $0 << 8 | Int($1) }
      let start = offset + headerSize
      guard count <= maximumChunk, count <= body.count - start else {
        throw SyncError(
          .badChunk,
          "The chunk \(hash) says \(count) bytes: more than the \(maximumChunk) allowed or than were sent."
        )
      }
      frames.append((hash, start..<start + count))
      offset = start + count
    }
    return frames
  }
}
