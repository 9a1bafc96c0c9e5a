import NIOCore
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
  /// Bytes left out at the start of the first piece and at the end of the last: a byte range
  /// of a file's contents (bare pieces only; see ``range(from:through:)``).
  var trimmed: (head: Int, tail: Int) = (0, 0)
  /// The most bytes read at once.
  static let sliceBytes = 4 << 20

  /// The length of the whole answer: each chunk's bytes, and its frame header if framed.
  var contentLength: Int {
    pieces.reduce(0) { $0 + (framed ? ChunkFrames.headerSize : 0) + $1.location.size }
      - trimmed.head - trimmed.tail
  }

  /// Bytes `start...end` of a file's contents (bare pieces, in order): only the chunks that
  /// hold them, streamed a slice at a time like the whole file, so a range of any length is
  /// sent in bounded memory. `start...end` lies within the contents.
  func range(from start: Int, through end: Int) -> ChunkDownload {
    var offset = 0
    var first: Int?
    var last = 0
    var head = 0
    var tail = 0
    for (index, piece) in pieces.enumerated() {
      defer { offset += piece.location.size }
      guard offset + piece.location.size > start, offset <= end else { continue }
      if first == nil {
        first = index
        head = start - offset
      }
      last = index
      tail = offset + piece.location.size - 1 - end
    }
    guard let first else { return ChunkDownload(pieces: [], blobs: blobs, framed: false) }
    var part = ChunkDownload(pieces: Array(pieces[first...last]), blobs: blobs, framed: false)
    part.trimmed = (head, tail)
    return part
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
    Array(try buffer(of: slice).readableBytesView)
  }

  /// The bytes of `slice` as sent, framed straight into the buffer an answer writes: one copy
  /// of each chunk, not two. A range's first and last slices leave out what lies before and
  /// after it.
  func buffer(of slice: ArraySlice<(hash: ContentHash, location: BlobLocation)>) throws(SyncError)
    -> ByteBuffer
  {
    var buffer = ByteBufferAllocator().buffer(
      capacity: slice.reduce(0) { $0 + (framed ? ChunkFrames.headerSize : 0) + $1.location.size })
    for (piece, bytes) in zip(slice, try blobs.read(Array(slice))) {
      if framed {
        buffer.writeBytes(piece.hash.bytes)
        buffer.writeInteger(UInt32(bytes.count), endianness: .big)
      }
      buffer.writeBytes(bytes)
    }
    let head = slice.startIndex == pieces.startIndex ? trimmed.head : 0
    let tail = slice.endIndex == pieces.endIndex ? trimmed.tail : 0
    buffer.moveReaderIndex(forwardBy: head)
    buffer.moveWriterIndex(to: buffer.writerIndex - tail)
    return buffer
  }
}
