import Foundation
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

extension ContentChunker {
  /// Cuts the file at `path` into chunks as it reads it, calling `body` with each chunk's offset
  /// and bytes (valid only during the call). Memory stays at a few maximum chunk sizes, whatever
  /// the file's size; the chunks are exactly those of ``chunkRanges(of:)`` on the whole file.
  ///
  /// - Throws: ``QuireError`` naming the file if it cannot be opened or read, or what `body`
  ///   throws.
  public func forEachChunk(
    ofFileAt path: String,
    _ body: (_ offset: Int64, _ chunk: UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw Self.readError(errno, path: path) }
    defer { close(fd) }
    try forEachChunk(ofFileDescriptor: fd, path: path, body)
  }

  /// Cuts the file open at `fd` into chunks from its current offset to its end, as
  /// ``forEachChunk(ofFileAt:_:)`` does; `path` only names the file in errors. The descriptor
  /// stays open, so the caller can read chunks back from the same file later (a file renamed
  /// over the path meanwhile does not change what it reads).
  ///
  /// - Throws: ``QuireError`` naming `path` if it cannot be read, or what `body` throws.
  public func forEachChunk(
    ofFileDescriptor fd: Int32, path: String,
    _ body: (_ offset: Int64, _ chunk: UnsafeRawBufferPointer) throws -> Void
  ) throws {
    let capacity = maximumSize * 4
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
    defer { buffer.deallocate() }
    var start = 0  // the next chunk's first byte in the buffer
    var filled = 0
    var offset: Int64 = 0
    var atEnd = false
    while true {
      // Keep at least one maximum chunk ahead of the cut, or everything that is left.
      while !atEnd && filled - start < maximumSize {
        if start > 0 {
          buffer.baseAddress!.copyMemory(
            from: buffer.baseAddress! + start, byteCount: filled - start)
          filled -= start
          start = 0
        }
        let count = read(fd, buffer.baseAddress! + filled, capacity - filled)
        if count < 0 {
          if errno == EINTR { continue }
          throw Self.readError(errno, path: path)
        }
        if count == 0 { atEnd = true } else { filled += count }
      }
      if start == filled { return }
      let pending = UnsafeRawBufferPointer(rebasing: buffer[start..<filled])
      let length = cutLength(pending)
      try body(offset, UnsafeRawBufferPointer(rebasing: pending[0..<length]))
      start += length
      offset += Int64(length)
    }
  }

  private static func readError(_ number: Int32, path: String) -> QuireError {
    let reason = String(cString: strerror(number))
    switch number {
    case ENOENT:
      return QuireError(.notFound, "“\(path)” does not exist; it cannot be chunked.", path: path)
    case EACCES, EPERM:
      return QuireError(
        .permissionDenied, "“\(path)” cannot be read (\(reason)); check its permissions.",
        path: path)
    default:
      return QuireError(.ioError, "Reading “\(path)” failed: \(reason).", path: path)
    }
  }
}
