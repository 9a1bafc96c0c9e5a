import Dispatch
import QuireCore
import QuireSyncProtocol

/// A member read once for upload, from its open file's offset to its end: its chunks as
/// ``ContentChunker/standard`` cuts them, where each starts, each one's hash, and the hash of
/// all of it.
///
/// The bytes are read a window of 8 MiB at a time. In each window the chunks are cut first (the
/// gear hash, which must go in order); then the window is hashed twice at once, the whole
/// member's SHA-256 on one thread and the chunks' on another. Those two passes are most of a
/// large member's first read (a 1 GiB member: 1.1 s of SHA-256 on one core here, against 0.4 s
/// of cutting), and the sender has nothing else to do meanwhile. A window under
/// ``parallelBytes`` is hashed on the caller's thread alone.
struct ChunkedRead {
  /// The hash of every byte read.
  let hash: ContentHash
  /// The chunks, in order.
  let chunks: [ChunkReference]
  /// Where each chunk starts, from the offset the read began at.
  let offsets: [Int64]
  /// How many bytes were read.
  let size: Int

  /// How many bytes are read and hashed at a time.
  static let window = 8 << 20
  /// The least a window's chunks add up to for its two hashes to run side by side.
  static let parallelBytes = 1 << 20

  /// Reads the open file `fd` to its end (`file` names it in errors). `expectedSize`, its size
  /// as last seen, sizes the buffer: a small member does not take a window's memory. (Any size
  /// is read whole; a file that grew meanwhile takes more reads.)
  init(fd: Int32, file: String, expectedSize: Int = .max) throws(SystemCallError) {
    let chunker = ContentChunker.standard
    let wanted = expectedSize < Self.window ? max(expectedSize, 0) + 1 : Self.window
    let window = max(chunker.maximumSize, wanted)
    let capacity = window + chunker.maximumSize
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 64)
    defer { buffer.deallocate() }
    var hasher = ContentHasher()
    var chunks: [ChunkReference] = []
    var offsets: [Int64] = []
    var filled = 0
    var offset: Int64 = 0
    var atEnd = false
    while true {
      if !atEnd {
        let wanted = capacity - filled
        let got = try Sys.fill(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        filled += got
        atEnd = got < wanted
      }
      // Cut while a whole maximum chunk is ahead, or to the end once the file has ended.
      let bytes = UnsafeRawBufferPointer(buffer)
      var cuts: [Range<Int>] = []
      var start = 0
      while start < filled && (atEnd || filled - start >= chunker.maximumSize) {
        let length = chunker.cutLength(UnsafeRawBufferPointer(rebasing: bytes[start..<filled]))
        cuts.append(start..<start + length)
        start += length
      }
      let hashes = Self.hash(bytes, cut: cuts, through: start, into: &hasher)
      for (range, hash) in zip(cuts, hashes) {
        chunks.append(ChunkReference(hash: hash, size: range.count))
        offsets.append(offset + Int64(range.lowerBound))
      }
      // What is left uncut moves to the front for the next window.
      if start < filled {
        buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: filled - start)
      }
      filled -= start
      offset += Int64(start)
      if atEnd && filled == 0 { break }
    }
    self.hash = hasher.finalize()
    self.chunks = chunks
    self.offsets = offsets
    self.size = Int(offset)
  }

  /// The hashes of `bytes`' chunks `cuts`, and `bytes[..<end]` added to `hasher`: side by side
  /// on two threads when they are worth it.
  private static func hash(
    _ bytes: UnsafeRawBufferPointer, cut cuts: [Range<Int>], through end: Int,
    into hasher: inout ContentHasher
  ) -> [ContentHash] {
    let whole = UnsafeRawBufferPointer(rebasing: bytes[0..<end])
    guard end >= parallelBytes else {
      hasher.update(whole)
      return cuts.map { ContentHash(of: UnsafeRawBufferPointer(rebasing: bytes[$0])) }
    }
    var hashes: [ContentHash] = []
    var local = hasher
    withUnsafeMutablePointer(to: &local) { wholeHasher in
      withUnsafeMutablePointer(to: &hashes) { chunkHashes in
        // Each iteration writes only its own result; concurrentPerform returns once both ran.
        nonisolated(unsafe) let wholeHasher = wholeHasher
        nonisolated(unsafe) let chunkHashes = chunkHashes
        nonisolated(unsafe) let whole = whole
        nonisolated(unsafe) let bytes = bytes
        DispatchQueue.concurrentPerform(iterations: 2) { index in
          if index == 0 {
            wholeHasher.pointee.update(whole)
          } else {
            chunkHashes.pointee = cuts.map {
              ContentHash(of: UnsafeRawBufferPointer(rebasing: bytes[$0]))
            }
          }
        }
      }
    }
    hasher = local
    return hashes
  }
}
