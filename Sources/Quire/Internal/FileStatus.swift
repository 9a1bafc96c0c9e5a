import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension FileAttributes {
  init(_ info: stat) {
    self.init(
      posixPermissions: UInt16(info.st_mode & 0o7777),
      modificationDate: Date(info.st_mtim),
      size: Int64(info.st_size))
  }
}

extension stat {
  var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
  var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
  var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }
}
