import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Sys {
  /// One entry of a directory listing: its name and its type from `d_type`
  /// (`DT_UNKNOWN` on file systems that do not report it).
  package struct DirectoryEntry {
    package var name: String
    package var type: UInt8
  }

  /// Lists the directory open as `fd` (the descriptor stays open), without `.` and `..`.
  package static func listDirectory(_ fd: Int32) throws(SystemCallError) -> [DirectoryEntry] {
    try check("readdir")
    let copy = Glibc.dup(fd)
    if copy < 0 { throw failure("dup") }
    guard let stream = Glibc.fdopendir(copy) else {
      let error = failure("fdopendir")
      close(copy)
      throw error
    }
    defer { Glibc.closedir(stream) }
    Glibc.rewinddir(stream)
    var entries: [DirectoryEntry] = []
    while true {
      cquire_set_errno(0)
      guard let entry = Glibc.readdir(stream) else {
        if cquire_errno() != 0 { throw failure("readdir") }
        return entries
      }
      let namePointer = cquire_dirent_name(entry)!
      if namePointer[0] == 0x2E
        && (namePointer[1] == 0 || (namePointer[1] == 0x2E && namePointer[2] == 0))
      {
        continue
      }
      entries.append(
        DirectoryEntry(name: String(cString: namePointer), type: cquire_dirent_type(entry)))
    }
  }

  /// Calls `body` with the name and `lstat` of every entry of the directory open as `fd`, in one
  /// pass over the `dirent`s (no intermediate list, no conversion of names before the stat).
  /// Entries that vanish between the listing and the stat are skipped.
  package static func forEachEntry(
    _ fd: Int32,
    _ body: (_ name: UnsafePointer<CChar>, _ info: inout stat) throws(SystemCallError) -> Void
  ) throws(SystemCallError) {
    try check("readdir")
    try check("stat")
    let copy = Glibc.dup(fd)
    if copy < 0 { throw failure("dup") }
    guard let stream = Glibc.fdopendir(copy) else {
      let error = failure("fdopendir")
      close(copy)
      throw error
    }
    defer { Glibc.closedir(stream) }
    Glibc.rewinddir(stream)
    var info = stat()
    while true {
      cquire_set_errno(0)
      guard let entry = Glibc.readdir(stream) else {
        if cquire_errno() != 0 { throw failure("readdir") }
        return
      }
      let name = cquire_dirent_name(entry)!
      if name[0] == 0x2E && (name[1] == 0 || (name[1] == 0x2E && name[2] == 0)) { continue }
      if Glibc.fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0 {
        if cquire_errno() == ENOENT { continue }
        throw failure("stat")
      }
      try body(name, &info)
    }
  }

  /// Lists the directory at `path`.
  package static func listDirectory(at path: String) throws(SystemCallError) -> [DirectoryEntry] {
    let fd = try open(path, O_RDONLY | O_DIRECTORY)
    defer { close(fd) }
    return try listDirectory(fd)
  }

  /// Removes `path` and, if it is a directory, everything below it. A missing path is fine.
  package static func removeTree(_ path: String) throws(SystemCallError) {
    guard let info = try status(path) else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      for entry in try listDirectory(at: path) {
        try removeTree(path + "/" + entry.name)
      }
      do { try rmdir(path) } catch  where error.errno == ENOENT {}
    } else {
      do { try unlink(path) } catch  where error.errno == ENOENT {}
    }
  }
}
