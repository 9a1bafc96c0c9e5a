import QuireSyncProtocol

/// The chunks of one answer, located, and read a slice at a time as the answer is written: a
/// fetch of a thousand chunks, or a public link's download of a large file, holds one slice (at
/// most ``sliceBytes``, or one chunk larger than that) in memory, not all of them, and the first
/// bytes leave before the last are read.
struct ChunkDownload: Sendable {
  /// The chunks in the order they are sent: each once for a fetch, as the member lists them for
  /// a file's contents.
  let pieces: [(hash: ContentHash, location: BlobLocation)]
  let blobs: any BlobStore
  /// Whether each chunk goes in a frame with its hash (a fetch), or as its bare bytes (a file's
  /// contents).
  var framed = true
  /// The most bytes read at once.
  static let sliceBytes = 4 << 20

  /// The length of the whole answer: each chunk's bytes, and its frame header if framed.
  var contentLength: Int {
    pieces.reduce(0) { $0 + (framed ? ChunkFrames.headerSize : 0) + $1.location.size }
  }

  /// The pieces in the order sent, cut into slices of at most ``sliceBytes`` of chunk bytes
  /// (a chunk larger than that is a slice of its own).
  var slices: [ArraySlice<(hash: ContentHash, location: BlobLocation)>] {
    var slices: [ArraySlice<(hash: ContentHash, location: BlobLocation)>] = []
    var start = 0
    var bytes = 0
    for (index, piece) in pieces.enumerated() {
      if index > start, bytes + piece.location.size > Self.sliceBytes {
        slices.append(pieces[start..<index])
        start = index
        bytes = 0
      }
      bytes += piece.location.size
    }
    if start < pieces.count { slices.append(pieces[start...]) }
    return slices
  }

  /// The bytes of `slice` as sent (framed or bare), its chunks read from the blob store.
  func body(of slice: ArraySlice<(hash: ContentHash, location: BlobLocation)>) throws(SyncError)
    -> [UInt8]
  {
    var body: [UInt8] = []
    body.reserveCapacity(
      slice.reduce(0) { $0 + (framed ? ChunkFrames.headerSize : 0) + $1.location.size })
    for (piece, bytes) in zip(slice, try blobs.read(Array(slice))) {
      if framed {
        ChunkFrames.append(hash: piece.hash, bytes: bytes, to: &body)
      } else {
        body += bytes
      }
    }
    return body
  }
}
