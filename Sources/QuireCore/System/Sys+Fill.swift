import CQuireShims

#if canImport(Glibc)
  import Glibc
#endif

extension Sys {
  /// Reads from the open file `fd`, at its offset, until `buffer` is full or the file ends;
  /// returns how many bytes it read (fewer than the buffer holds only at the end). A fault of
  /// `"read"` fails it.
  package static func fill(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer)
    throws(SystemCallError) -> Int
  {
    try check("read")
    var done = 0
    while done < buffer.count {
      let got = Glibc.read(fd, buffer.baseAddress! + done, buffer.count - done)
      if got < 0 {
        if cquire_errno() == EINTR { continue }
        throw failure("read")
      }
      if got == 0 { break }
      done += got
    }
    return done
  }
}
