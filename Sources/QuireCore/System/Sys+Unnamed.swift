import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Files made with no name (`O_TMPFILE`), and named once they are whole.
extension Sys {
  /// Gives `fd`, a file made by ``openUnnamed(in:name:)`` with `O_TMPFILE`, the name `path` on
  /// the same file system. Fails (`ENOENT`) for one that was named and unlinked instead.
  package static func link(openFile fd: Int32, to path: String) throws(SystemCallError) {
    try check("linkat")
    if cquire_link_open_file(fd, path) != 0 { throw failure("linkat") }
  }

  /// The file system's own time now, for files in `folder`, in nanoseconds since 1970: the
  /// modification time a file written
  /// there now gets, in the file system's clock and at its granularity (a tick, or coarser). A
  /// file whose time is not before it may be written again in the same tick without its time
  /// changing, so its size and time do not prove its contents (git's "racily clean").
  /// Found by making an unnamed file there (``openUnnamed(in:name:)``).
  package static func fileSystemNow(in folder: String) throws(SystemCallError) -> Int64 {
    let fd = try openUnnamed(in: folder, name: ".quire-sync-clock-")
    defer { close(fd) }
    return try status(of: fd).st_mtim.saturatingNanoseconds
  }

  /// A new regular file on `folder`'s file system, open for reading and writing, with no name:
  /// no other process can find it, and it is gone when closed, even if the process is killed.
  /// Made with `O_TMPFILE`; where the file system has none, it is named `name` and a UUID, and
  /// the name is removed at once.
  package static func openUnnamed(in folder: String, name: String) throws(SystemCallError)
    -> Int32
  {
    if let fd = try openUnnamedIfSupported(in: folder, mode: 0o600) { return fd }
    let path = folder + "/" + name + UUID().uuidString
    let named = try open(path, O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
    do throws(SystemCallError) {
      try unlink(path)
    } catch {
      close(named)
      throw error
    }
    return named
  }

  /// A new regular file on `folder`'s file system, open for reading and writing, with no name
  /// (`O_TMPFILE`), that ``link(openFile:to:)`` can name with `mode` (less the umask); nil where
  /// the file system has no such files.
  package static func openUnnamedIfSupported(in folder: String, mode: mode_t)
    throws(SystemCallError) -> Int32?
  {
    try check("open")
    let fd = cquire_open_tmpfile(folder, UInt32(mode))
    if fd >= 0 { return fd }
    guard [EOPNOTSUPP, EISDIR, EINVAL].contains(cquire_errno()) else { throw failure("open") }
    return nil
  }
}
