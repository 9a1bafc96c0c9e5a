import QuireSyncProtocol

/// A PUT's body cut into chunks as it arrives, as every device cuts a file, and handed to
/// `store` in batches of about ``batchBytes``: a PUT of any size holds one batch and one
/// chunk's worth of bytes, never the whole file. ``finish()`` gives what the commit lists.
struct DAVUpload {
  /// What a finished upload is: the whole contents' hash, its chunks in order, and its size.
  struct Contents: Sendable {
    var hash: ContentHash
    var chunks: [ChunkReference]
    var size: Int

    /// The manifest member at `path` with these contents.
    func member(path: String, modified: Double) -> ManifestMember {
      ManifestMember(
        path: path, size: size, mode: 0o644, modified: modified, hash: hash, chunks: chunks)
    }
  }

  /// The frames stored at a time: each batch is one pack written and synced.
  let batchBytes: Int
  /// Stores a batch of chunk frames (``ChunkFrames``).
  private let store: ([UInt8]) throws(DAVError) -> Void
  private let chunker = ContentChunker.standard
  private var pending: [UInt8] = []
  private var frames: [UInt8] = []
  private var hasher = ContentHasher()
  private var chunks: [ChunkReference] = []
  /// The bytes received so far.
  private(set) var size = 0

  init(batchBytes: Int = 8 << 20, store: @escaping ([UInt8]) throws(DAVError) -> Void) {
    self.batchBytes = batchBytes
    self.store = store
  }

  /// Takes the next bytes of the body.
  mutating func append(_ bytes: some Collection<UInt8>) throws(DAVError) {
    pending.append(contentsOf: bytes)
    size += bytes.count
    // A cut needs the chunk's whole reach in hand (ContentChunker.cutLength).
    var start = 0
    while pending.count - start >= chunker.maximumSize {
      start += cut(from: start)
    }
    pending.removeFirst(start)
    if frames.count >= batchBytes { try flush() }
  }

  /// Cuts what is left, stores the last batch, and returns the contents.
  mutating func finish() throws(DAVError) -> Contents {
    var start = 0
    while start < pending.count { start += cut(from: start) }
    pending = []
    try flush()
    return Contents(hash: hasher.finalize(), chunks: chunks, size: size)
  }

  /// Cuts the chunk that starts at `start` of the pending bytes; returns its length.
  private mutating func cut(from start: Int) -> Int {
    pending.withUnsafeBytes { buffer in
      let rest = UnsafeRawBufferPointer(rebasing: buffer[start...])
      let chunk = UnsafeRawBufferPointer(rebasing: rest[0..<chunker.cutLength(rest)])
      let hash = ContentHash(of: chunk)
      hasher.update(chunk)
      ChunkFrames.append(hash: hash, bytes: chunk, to: &frames)
      chunks.append(ChunkReference(hash: hash, size: chunk.count))
      return chunk.count
    }
  }

  private mutating func flush() throws(DAVError) {
    guard !frames.isEmpty else { return }
    try store(frames)
    frames.removeAll(keepingCapacity: true)
  }
}
