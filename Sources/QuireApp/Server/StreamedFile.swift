import Foundation
import Hummingbird
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

/// A file sent as an answer a piece at a time from its open descriptor, so a download of a
/// document of any size holds ``pieceBytes`` of the app's memory, not the whole document.
///
/// The descriptor is opened by the caller inside its coordinated read, and read after it: a
/// save that replaces the document (every Quire save, every safe-save) renames a new file over
/// its name and leaves the open one as it was, so the answer is one version of it. The
/// descriptor is closed once the answer is written, or dropped unwritten.
final class StreamedFile: Sendable {
  /// The most bytes read and held at once.
  static let pieceBytes = 1 << 20

  private let fd: Int32
  private let size: Int

  /// Takes `fd`, open for reading, and sends its bytes from the start.
  init(fd: Int32) throws(SystemCallError) {
    do {
      size = Int(try Sys.status(of: fd).st_size)
    } catch {
      Sys.close(fd)
      throw error
    }
    self.fd = fd
  }

  deinit { Sys.close(fd) }

  /// The answer: `headers`, the file's length, and its bytes.
  func response(headers: HTTPFields) -> Response {
    Response(
      status: .ok, headers: headers,
      body: ResponseBody(contentLength: size) { [self] writer in
        var offset = 0
        while offset < size {
          let count = min(Self.pieceBytes, size - offset)
          let piece = try Sys.read(fd, at: Int64(offset), count: count)
          guard !piece.isEmpty else { break }  // cut short since: the client sees it end early
          try await writer.write(ByteBuffer(bytes: piece))
          offset += piece.count
        }
        try await writer.finish(nil)
      })
  }
}
