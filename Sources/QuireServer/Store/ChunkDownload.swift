import QuireSyncProtocol

/// The chunks of one fetch, located, and read a slice at a time as the answer is written: a
/// fetch of a thousand chunks holds one slice (at most ``sliceBytes``, or one chunk larger than
/// that) in memory, not all of them, and the first bytes leave before the last are read.
struct ChunkDownload: Sendable {
  /// The chunks in the order they are sent, each once.
  let pieces: [(hash: ContentHash, location: BlobLocation)]
  let blobs: any BlobStore
  /// The most bytes read at once.
  static let sliceBytes = 4 << 20

  /// The length of the whole answer: each chunk's frame header and bytes.
  var contentLength: Int {
    pieces.reduce(0) { $0 + ChunkFrames.headerSize + $1.location.size }
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

  /// The frames of `slice`, its chunks read from the blob store.
  func frames(_ slice: ArraySlice<(hash: ContentHash, location: BlobLocation)>) throws(SyncError)
    -> [UInt8]
  {
    var body: [UInt8] = []
    body.reserveCapacity(slice.reduce(0) { $0 + ChunkFrames.headerSize + $1.location.size })
    for (piece, bytes) in zip(slice, try blobs.read(Array(slice))) {
      ChunkFrames.append(hash: piece.hash, bytes: bytes, to: &body)
    }
    return body
  }
}
