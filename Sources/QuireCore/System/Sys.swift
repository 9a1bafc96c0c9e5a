import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The one layer through which Quire makes system calls.
///
/// Every call first asks the task-local ``faults`` hook, so a test can make exactly the
/// fourth `fsync` of a save fail with `EIO` and check that nothing was lost. Calls that can be
/// interrupted are retried on `EINTR`.
package enum Sys {
  /// A test hook: given a call's name, returns an errno to fail it with, or nil to run it.
  /// Package-visible so the crash-test helper process can kill itself at the Nth call.
  @TaskLocal package static var faults: FaultHook?

  package static let currentDirectory: Int32 = AT_FDCWD

  @inline(__always)
  package static func check(_ call: String) throws(SystemCallError) {
    if let hook = faults, let errno = hook.decide(call) {
      throw SystemCallError(call: call, errno: errno)
    }
  }

  @inline(__always)
  package static func failure(_ call: String) -> SystemCallError {
    SystemCallError(call: call, errno: cquire_errno())
  }

  package static func open(
    _ path: String, _ flags: Int32, mode: mode_t = 0o666, relativeTo dir: Int32 = AT_FDCWD
  ) throws(SystemCallError) -> Int32 {
    try check("open")
    while true {
      let fd = Glibc.openat(dir, path, flags | O_CLOEXEC, mode)
      if fd >= 0 { return fd }
      if cquire_errno() != EINTR { throw failure("open") }
    }
  }

  package static func close(_ fd: Int32) {
    _ = Glibc.close(fd)
  }

  /// Writes all of `buffer`, retrying short writes and EINTR (the one write loop of the package).
  package static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(SystemCallError) {
    try check("write")
    var offset = 0
    while offset < buffer.count {
      let written = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
      if written < 0 {
        if cquire_errno() == EINTR { continue }
        throw failure("write")
      }
      offset += written
    }
  }

  /// Writes all of `data`.
  package static func write(_ fd: Int32, _ data: Data) throws(SystemCallError) {
    var result: Result<Void, SystemCallError> = .success(())
    data.withUnsafeBytes { buffer in
      do throws(SystemCallError) { try write(fd, buffer) } catch { result = .failure(error) }
    }
    try result.get()
  }

  /// Writes all of `bytes`.
  package static func write(_ fd: Int32, _ bytes: [UInt8]) throws(SystemCallError) {
    var result: Result<Void, SystemCallError> = .success(())
    bytes.withUnsafeBytes { buffer in
      do throws(SystemCallError) { try write(fd, buffer) } catch { result = .failure(error) }
    }
    try result.get()
  }

  /// Writes all of `bytes` at `offset` of `fd` (`pwrite`, retried on short writes and EINTR);
  /// the file's own offset does not move.
  package static func write(_ fd: Int32, _ bytes: [UInt8], at offset: Int64)
    throws(SystemCallError)
  {
    try check("pwrite")
    var done = 0
    while done < bytes.count {
      let written = bytes.withUnsafeBytes {
        Glibc.pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done))
      }
      if written < 0 {
        if cquire_errno() == EINTR { continue }
        throw failure("pwrite")
      }
      done += written
    }
  }

  /// Starts writing `fd`'s dirty pages to disk without waiting (`sync_file_range`), so a later
  /// `fsync` has little left to do. Only a hint: it proves nothing durable.
  package static func startWriteback(_ fd: Int32) {
    _ = cquire_start_writeback(fd)
  }

  /// Reads the whole file behind `fd` (of `size` bytes) into memory.
  package static func readAll(_ fd: Int32, size: Int) throws(SystemCallError) -> Data {
    try check("read")
    var data = Data(count: size)
    var total = 0
    var failed: SystemCallError?
    data.withUnsafeMutableBytes { buffer in
      while total < size {
        let count = Glibc.read(fd, buffer.baseAddress! + total, size - total)
        if count < 0 {
          if cquire_errno() == EINTR { continue }
          failed = failure("read")
          return
        }
        if count == 0 { break }
        total += count
      }
    }
    if let failed { throw failed }
    if total < size { data.removeSubrange(total..<size) }
    return data
  }

  /// Reads up to `count` bytes at `offset` of `fd` (`pread`, retried on short reads and EINTR).
  /// Fewer come back only at the end of the file.
  package static func read(_ fd: Int32, at offset: Int64, count: Int) throws(SystemCallError)
    -> [UInt8]
  {
    try check("pread")
    var bytes = [UInt8](repeating: 0, count: count)
    var done = 0
    while done < count {
      let got = bytes.withUnsafeMutableBytes {
        Glibc.pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done))
      }
      if got < 0 {
        if cquire_errno() == EINTR { continue }
        throw failure("pread")
      }
      if got == 0 { break }
      done += got
    }
    if done < count { bytes.removeSubrange(done...) }
    return bytes
  }

  /// Cuts or extends the open file `fd` to `size` bytes.
  package static func truncate(_ fd: Int32, to size: Int64) throws(SystemCallError) {
    try check("ftruncate")
    while Glibc.ftruncate(fd, off_t(size)) != 0 {
      if cquire_errno() != EINTR { throw failure("ftruncate") }
    }
  }

  /// Makes the file's data and metadata durable. Quire calls this before any rename that
  /// publishes the file, so a crash can never expose a name pointing at unwritten data.
  package static func fsync(_ fd: Int32) throws(SystemCallError) {
    try check("fsync")
    while Glibc.fsync(fd) != 0 {
      if cquire_errno() != EINTR { throw failure("fsync") }
    }
  }

  /// Opens the directory at `path` read-only, fsyncs it (making renames and creations of its
  /// entries durable) and closes it.
  package static func fsyncDirectory(_ path: String, relativeTo dir: Int32 = AT_FDCWD)
    throws(SystemCallError)
  {
    let fd = try open(path, O_RDONLY | O_DIRECTORY, relativeTo: dir)
    defer { close(fd) }
    try fsync(fd)
  }

  package static func rename(
    _ old: String, _ new: String, oldDirectory: Int32 = AT_FDCWD, newDirectory: Int32 = AT_FDCWD
  ) throws(SystemCallError) {
    try check("rename")
    if Glibc.renameat(oldDirectory, old, newDirectory, new) != 0 { throw failure("rename") }
  }

  /// Atomically swaps two paths (renameat2 with RENAME_EXCHANGE).
  package static func exchange(_ first: String, _ second: String) throws(SystemCallError) {
    try check("renameat2")
    if cquire_rename_exchange(AT_FDCWD, first, AT_FDCWD, second) != 0 { throw failure("renameat2") }
  }

  /// Renames without replacing: fails with `EEXIST` if `new` exists.
  package static func renameNoReplace(_ old: String, _ new: String) throws(SystemCallError) {
    try check("renameat2")
    if cquire_rename_noreplace(AT_FDCWD, old, AT_FDCWD, new) != 0 { throw failure("renameat2") }
  }

  package static func unlink(_ path: String, relativeTo dir: Int32 = AT_FDCWD)
    throws(SystemCallError)
  {
    try check("unlink")
    if Glibc.unlinkat(dir, path, 0) != 0 { throw failure("unlink") }
  }

  package static func rmdir(_ path: String, relativeTo dir: Int32 = AT_FDCWD)
    throws(SystemCallError)
  {
    try check("rmdir")
    if Glibc.unlinkat(dir, path, AT_REMOVEDIR) != 0 { throw failure("rmdir") }
  }

  package static func mkdir(
    _ path: String, mode: mode_t = 0o777, relativeTo dir: Int32 = AT_FDCWD
  ) throws(SystemCallError) {
    try check("mkdir")
    if Glibc.mkdirat(dir, path, mode) != 0 { throw failure("mkdir") }
  }

  package static func symlink(
    _ destination: String, at path: String, relativeTo dir: Int32 = AT_FDCWD
  ) throws(SystemCallError) {
    try check("symlink")
    if Glibc.symlinkat(destination, dir, path) != 0 { throw failure("symlink") }
  }

  package static func link(_ existing: String, _ new: String) throws(SystemCallError) {
    try check("link")
    if Glibc.linkat(AT_FDCWD, existing, AT_FDCWD, new, 0) != 0 { throw failure("link") }
  }

  package static func readlink(_ path: String, relativeTo dir: Int32 = AT_FDCWD)
    throws(SystemCallError)
    -> String
  {
    try check("readlink")
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = Glibc.readlinkat(dir, path, &buffer, buffer.count - 1)
    if count < 0 { throw failure("readlink") }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// `lstat` (by default) or `stat` of a path; nil when it does not exist.
  package static func status(
    _ path: String, relativeTo dir: Int32 = AT_FDCWD, followLinks: Bool = false
  ) throws(SystemCallError) -> stat? {
    try check("stat")
    var info = stat()
    if Glibc.fstatat(dir, path, &info, followLinks ? 0 : AT_SYMLINK_NOFOLLOW) == 0 { return info }
    if cquire_errno() == ENOENT { return nil }
    throw failure("stat")
  }

  package static func status(of fd: Int32) throws(SystemCallError) -> stat {
    try check("fstat")
    var info = stat()
    if Glibc.fstat(fd, &info) != 0 { throw failure("fstat") }
    return info
  }

  package static func chmod(_ fd: Int32, _ mode: mode_t) throws(SystemCallError) {
    try check("fchmod")
    if Glibc.fchmod(fd, mode) != 0 { throw failure("fchmod") }
  }

  package static func chmod(_ path: String, _ mode: mode_t) throws(SystemCallError) {
    try check("chmod")
    if Glibc.fchmodat(AT_FDCWD, path, mode, 0) != 0 { throw failure("chmod") }
  }

  /// Whether a process has the file behind `fd` (open read-only) open for writing; nil if the
  /// kernel cannot tell (a file system without leases, another user's file).
  package static func hasWriters(_ fd: Int32) -> Bool? {
    switch cquire_has_writers(fd) {
    case 0: false
    case 1: true
    default: nil
    }
  }

  /// Waits until no process has the file behind `fd` (open read-only, perhaps unlinked) open for
  /// writing, so its bytes are the last a writer meant. The kernel says so: a read lease can be
  /// taken only when no writer has the file open, and each writer's close is an inotify event
  /// (watched through `/proc/self/fd`, which reaches an unlinked file too). `waiting` is called
  /// once if a writer still has it open.
  ///
  /// - Returns: true once no writer has it open; false if `bound` passed first (a writer that
  ///   keeps the file open), or if the kernel cannot tell (a file system without leases, another
  ///   user's file): the caller then treats the bytes as possibly unfinished.
  package static func waitForWriters(
    of fd: Int32, bound: Duration, waiting: () -> Void = {}
  ) -> Bool {
    let watcher = inotify_init1(Int32(IN_CLOEXEC))
    guard watcher >= 0 else { return false }
    defer { close(watcher) }
    // The watch comes first: a close between the check and the watch would go unheard.
    guard inotify_add_watch(watcher, "/proc/self/fd/\(fd)", UInt32(IN_CLOSE_WRITE)) >= 0 else {
      return false
    }
    let deadline = ContinuousClock.now + bound
    var told = false
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
      let writers = cquire_has_writers(fd)
      if writers == 0 { return true }
      if writers < 0 { return false }
      if !told {
        told = true
        waiting()
      }
      let left = deadline - ContinuousClock.now
      guard left > .zero else { return false }
      var ready = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
      if poll(&ready, 1, milliseconds) > 0 {
        _ = buffer.withUnsafeMutableBytes { Glibc.read(watcher, $0.baseAddress, $0.count) }
      }
    }
  }

  /// Sets the modification time (and the access time to the same) of the open file `fd`.
  package static func setModificationTime(of fd: Int32, _ time: timespec) throws(SystemCallError) {
    try check("futimens")
    var times = [time, time]
    if Glibc.futimens(fd, &times) != 0 { throw failure("futimens") }
  }

  /// Sets the modification time (and the access time to the same) without following links.
  package static func setModificationTime(_ path: String, _ time: timespec) throws(SystemCallError)
  {
    try check("utimensat")
    var times = [time, time]
    if Glibc.utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW) != 0 {
      throw failure("utimensat")
    }
  }

  /// Sets a file's access and modification times to now, as `touch` does: whoever watches it
  /// hears an attribute change, raised after everything written before it.
  package static func touch(_ path: String) throws(SystemCallError) {
    try check("utimensat")
    if Glibc.utimensat(AT_FDCWD, path, nil, 0) != 0 { throw failure("utimensat") }
  }

  package static func lock(_ fd: Int32, _ operation: Int32) throws(SystemCallError) {
    try check("flock")
    while cquire_flock(fd, operation) != 0 {
      if cquire_errno() != EINTR { throw failure("flock") }
    }
  }

  /// Copies `count` bytes from `source` to `destination` in the kernel, falling back to a
  /// read/write loop where `copy_file_range` is not supported.
  package static func copy(from source: Int32, to destination: Int32, count: Int)
    throws(SystemCallError)
  {
    try check("copy_file_range")
    var remaining = count
    while remaining > 0 {
      let copied = cquire_copy_file_range(source, destination, remaining)
      if copied < 0 {
        let errno = cquire_errno()
        if errno == EINTR { continue }
        if errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP {
          return try copyByReading(from: source, to: destination)
        }
        throw failure("copy_file_range")
      }
      if copied == 0 { break }
      remaining -= copied
    }
  }

  private static func copyByReading(from source: Int32, to destination: Int32)
    throws(SystemCallError)
  {
    let size = 1 << 20
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    defer { buffer.deallocate() }
    while true {
      let count = Glibc.read(source, buffer.baseAddress!, size)
      if count < 0 {
        if cquire_errno() == EINTR { continue }
        throw failure("read")
      }
      if count == 0 { return }
      try write(destination, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }

  /// Flushes the whole file system holding `fd`: one call to make a large import durable.
  package static func syncFileSystem(_ fd: Int32) throws(SystemCallError) {
    try check("syncfs")
    if cquire_syncfs(fd) != 0 { throw failure("syncfs") }
  }

  /// Maps `size` bytes of `fd` read-only; the mapping outlives `fd`.
  package static func map(_ fd: Int32, size: Int) throws(SystemCallError) -> UnsafeMutableRawPointer
  {
    try check("mmap")
    let pointer = Glibc.mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
    if pointer == MAP_FAILED || pointer == nil { throw failure("mmap") }
    return pointer!
  }
}

/// Decides, per system call name, whether a test wants it to fail.
package final class FaultHook: Sendable {
  package let decide: @Sendable (String) -> Int32?
  /// Makes a hook that asks `decide` about every call.
  package init(_ decide: @escaping @Sendable (String) -> Int32?) { self.decide = decide }
}
