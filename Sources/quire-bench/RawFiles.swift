import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The bare system calls the baselines and the floor are made of, with no Quire code between.
enum RawFiles {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func check(_ result: Int32, _ what: String) throws {
    if result < 0 { throw Failure(description: "\(what): \(String(cString: strerror(errno)))") }
  }

  /// Writes `bytes` to a new file and, if asked, fsyncs it.
  static func create(_ path: String, _ bytes: [UInt8], sync: Bool) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    try check(fd, "open \(path)")
    defer { close(fd) }
    try check(Int32(truncatingIfNeeded: write(fd, bytes, bytes.count)), "write \(path)")
    if sync { try check(fsync(fd), "fsync \(path)") }
  }

  static func fsyncDirectory(_ path: String) throws {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try check(fd, "open \(path)")
    defer { close(fd) }
    try check(fsync(fd), "fsync \(path)")
  }

  /// Names in a folder, without `.` and `..`.
  static func names(_ path: String) throws -> [String] {
    guard let stream = opendir(path) else { throw Failure(description: "opendir \(path)") }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = String(cString: cquire_dirent_name(entry))
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// readdir plus lstat of every entry, recursively: what any tool listing a package must do.
  static func walk(_ path: String) throws -> Int {
    let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    try check(fd, "open \(path)")
    return try walk(fd: fd)
  }

  private static func walk(fd: Int32) throws -> Int {
    guard let stream = fdopendir(fd) else { throw Failure(description: "fdopendir") }
    defer { closedir(stream) }
    var count = 0
    while let entry = readdir(stream) {
      let name = cquire_dirent_name(entry)!
      if strcmp(name, ".") == 0 || strcmp(name, "..") == 0 { continue }
      var info = stat()
      try check(fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW), "fstatat")
      count += 1
      if info.st_mode & S_IFMT == S_IFDIR {
        let child = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try check(child, "openat")
        count += try walk(fd: child)
      }
    }
    return count
  }

  /// Removes a tree with the bare calls.
  static func removeTree(_ path: String) throws {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
      for name in try names(path) { try removeTree(path + "/" + name) }
      try check(rmdir(path), "rmdir \(path)")
    } else {
      try check(unlink(path), "unlink \(path)")
    }
  }

  /// Builds a package of `members` files of `size` bytes, spread over folders of at most
  /// `perFolder` files when `nested`, else all at the top.
  static func makePackage(
    _ path: String, members: Int, size: Int, extension fileExtension: String = "jpg"
  ) throws -> [String] {
    try check(mkdir(path, 0o755), "mkdir \(path)")
    var names: [String] = []
    names.reserveCapacity(members)
    var bytes = [UInt8](repeating: 0, count: size)
    for index in 0..<members {
      let name = String(format: "IMG_%06d.", index) + fileExtension
      bytes[0] = UInt8(truncatingIfNeeded: index)
      bytes[size - 1] = UInt8(truncatingIfNeeded: index >> 8)
      try create(path + "/" + name, bytes, sync: false)
      names.append(name)
    }
    sync()
    return names
  }
}
