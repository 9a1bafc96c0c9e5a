import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Date {
  init(_ time: timespec) {
    self.init(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1_000_000_000)
  }

  var timespec: Glibc.timespec {
    let seconds = timeIntervalSince1970.rounded(.down)
    let nanoseconds = ((timeIntervalSince1970 - seconds) * 1_000_000_000).rounded()
    return Glibc.timespec(tv_sec: Int(seconds), tv_nsec: min(Int(nanoseconds), 999_999_999))
  }
}

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
