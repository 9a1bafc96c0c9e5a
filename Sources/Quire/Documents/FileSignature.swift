import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a document remembers of its file to tell another program's change from its own: the
/// inode, size and modification time, and for a package also the newest modification time of
/// its top-level members (a member written in place does not touch the folder's own time).
struct FileSignature: Hashable, Sendable {
  /// A modification time in nanoseconds.
  typealias Time = Int64

  var inode: UInt64
  var size: Int64
  var modified: Time
  var newestMember: Time?

  /// The signature of the item at `path`, or `nil` if there is none.
  static func of(_ path: String) -> FileSignature? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    var signature = FileSignature(
      inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: Self.time(info.st_mtim),
      newestMember: nil)
    guard info.st_mode & S_IFMT == S_IFDIR else { return signature }
    for name in CoordinationRuntime.names(in: path) {
      var member = stat()
      guard lstat(path + "/" + name, &member) == 0 else { continue }
      let time = Self.time(member.st_mtim)
      if signature.newestMember.map({ time > $0 }) ?? true { signature.newestMember = time }
    }
    return signature
  }

  private static func time(_ value: timespec) -> Time {
    Int64(value.tv_sec) * 1_000_000_000 + Int64(value.tv_nsec)
  }
}
