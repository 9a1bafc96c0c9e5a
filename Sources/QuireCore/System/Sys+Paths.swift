import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What `FileManager` would do with a path, made of ``Sys`` calls: a test that fails a call
/// fails these too, and code that uses them never reaches the file system another way.
extension Sys {
  /// Whether anything is at `path`: the link itself, unless `followLinks`.
  package static func exists(_ path: String, followLinks: Bool = false) throws(SystemCallError)
    -> Bool
  {
    try status(path, followLinks: followLinks) != nil
  }

  /// Whether a folder is at `path`, following a link as making a file in it would.
  package static func isFolder(_ path: String) throws(SystemCallError) -> Bool {
    guard let info = try status(path, followLinks: true) else { return false }
    return info.st_mode & S_IFMT == S_IFDIR
  }

  /// Makes the folder at `path` and every missing folder above it (`mkdir -p`). A folder that
  /// appears meanwhile is used; a file holding one of the names fails with `EEXIST`.
  package static func makeFolders(_ path: String, mode: mode_t = 0o777) throws(SystemCallError) {
    var missing: [String] = []
    var folder = path
    while !folder.isEmpty, folder != "/", try !isFolder(folder) {
      missing.append(folder)
      folder = (folder as NSString).deletingLastPathComponent
    }
    for target in missing.reversed() {
      do { try mkdir(target, mode: mode) } catch {
        guard error.errno == EEXIST, try isFolder(target) else { throw error }
      }
    }
  }

  /// The bytes of the file at `path` (following a link); nil if nothing is there.
  package static func contents(of path: String) throws(SystemCallError) -> Data? {
    let fd: Int32
    do { fd = try open(path, O_RDONLY) } catch  where error.errno == ENOENT { return nil }
    defer { close(fd) }
    return try readAll(fd, size: Int(try status(of: fd).st_size))
  }

  /// The whole of a file whose size `stat` does not tell, such as `/proc/locks`: read until
  /// its end, 64 KiB at a time.
  package static func contents(ofKernelFile path: String) throws(SystemCallError) -> Data {
    let fd = try open(path, O_RDONLY)
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      var failure: SystemCallError?
      let got = buffer.withUnsafeMutableBytes { bytes -> Int in
        do throws(SystemCallError) { return try fill(fd, bytes) } catch {
          failure = error
          return 0
        }
      }
      if let failure { throw failure }
      data.append(contentsOf: buffer[..<got])
      if got < buffer.count { return data }
    }
  }

  /// Whether some process holds a `flock` on the file at `path`, as the kernel's list of locks
  /// (`/proc/locks`) says, without taking the lock (which could stop its owner from taking it
  /// that instant). Matched by inode number alone: the device numbers there differ from
  /// `stat`'s on btrfs subvolumes. Nil if the file or the list cannot be read.
  package static func isFlocked(_ path: String) -> Bool? {
    guard let info = try? status(path, followLinks: true),
      let list = try? contents(ofKernelFile: "/proc/locks")
    else { return nil }
    let inode = ":" + String(UInt64(info.st_ino))
    return String(decoding: list, as: UTF8.self).split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.contains("FLOCK") && fields.contains { $0.hasSuffix(inode) }
    }
  }

  /// Replaces the file at `path` with `data`, with permission bits `mode`, so that a crash at
  /// any moment leaves the old file or the new one, whole: written beside it, fsynced, renamed
  /// over it, and the rename made durable.
  package static func replaceDurably(_ path: String, with data: Data, mode: mode_t)
    throws(SystemCallError)
  {
    let temporary = path + ".tmp-\(UUID().uuidString)"
    let fd = try open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: mode)
    do {
      defer { close(fd) }
      try write(fd, data)
      try chmod(fd, mode)  // whatever the umask took away
      try fsync(fd)
    } catch {
      try? unlink(temporary)
      throw error
    }
    do { try rename(temporary, path) } catch {
      try? unlink(temporary)
      throw error
    }
    try fsyncDirectory((path as NSString).deletingLastPathComponent)
  }

  /// Moves `old` to `new`, never over something at `new` (`EEXIST`). On a file system without
  /// `RENAME_NOREPLACE` (NFS, some FUSE), it looks first, then renames.
  package static func move(_ old: String, to new: String) throws(SystemCallError) {
    do { try renameNoReplace(old, new) } catch
      where [EINVAL, ENOSYS, EOPNOTSUPP].contains(error.errno)
    {
      if try exists(new) { throw SystemCallError(call: "rename", errno: EEXIST) }
      try rename(old, new)
    }
  }

  /// The names in the folder at `path`, without `.` and `..`; none if it is not there.
  package static func names(in path: String) throws(SystemCallError) -> [String] {
    do { return try listDirectory(at: path).map(\.name) } catch  where error.errno == ENOENT {
      return []
    }
  }

  /// A second descriptor of what `fd` has open (`dup`), closed on exec.
  package static func duplicate(_ fd: Int32) throws(SystemCallError) -> Int32 {
    try check("dup")
    let copy = Glibc.fcntl(fd, F_DUPFD_CLOEXEC, 0)
    if copy < 0 { throw failure("dup") }
    return copy
  }
}
