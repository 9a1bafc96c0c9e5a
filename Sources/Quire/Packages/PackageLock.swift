#if canImport(Glibc)
  import Glibc
#endif

/// An advisory lock on a package directory (`flock` on the directory itself, so no lock file is
/// left behind). Readers share it while walking the package; a save holds it exclusively. The
/// kernel drops it when the holder dies, even by SIGKILL.
struct PackageLock {
  let fd: Int32

  /// Opens and locks the directory at `path`, retrying if a save swapped the directory for
  /// another while this waited.
  init(path: String, exclusive: Bool) throws(SystemCallError) {
    while true {
      let fd = try Sys.open(path, O_RDONLY | O_DIRECTORY)
      do throws(SystemCallError) {
        try Sys.lock(fd, exclusive ? LOCK_EX : LOCK_SH)
        let held = try Sys.status(of: fd)
        if let current = try Sys.status(path, followLinks: true),
          current.st_ino == held.st_ino, current.st_dev == held.st_dev
        {
          self.fd = fd
          return
        }
        Sys.close(fd)
      } catch {
        Sys.close(fd)
        throw error
      }
    }
  }

  func upgrade() throws(SystemCallError) { try Sys.lock(fd, LOCK_EX) }
  func downgrade() throws(SystemCallError) { try Sys.lock(fd, LOCK_SH) }

  /// Unlocks and closes the directory.
  func release() { Sys.close(fd) }
}
