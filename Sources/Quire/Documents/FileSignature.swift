import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What a document remembers of its file to tell another program's change from its own: the
/// inode, size and modification time of the item itself — one `stat`, whatever the package's
/// size.
///
/// Why not more: a package's own times change with every Quire save (each one renames its
/// staged members into the folder), so the folder's signature tells "another program saved it"
/// in O(1). What the folder's times miss — a member written in place by a program that does not
/// coordinate — reaches the document as a member event from the file monitor, and
/// ``MemberSignatures`` decides that case by one `stat` of that member. No path walks the
/// package to compare times.
struct FileSignature: Hashable, Sendable {
  /// A time in nanoseconds since 1970.
  typealias Time = Int64

  var inode: UInt64
  var size: Int64
  var modified: Time
  /// The status-change time: excluded from equality (a tag or permission change by another
  /// program is not a change of contents), used to order member events against a load.
  var changed: Time
  /// Whether the item is a folder (excluded from equality).
  var isFolder = false

  /// The signature of the item at `path` (not following a final link), or `nil` if there is none.
  static func of(_ path: String, followLinks: Bool = true) -> FileSignature? {
    guard let info = try? Sys.status(path, followLinks: followLinks) else { return nil }
    return FileSignature(
      inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: time(info.st_mtim),
      changed: time(info.st_ctim), isFolder: info.st_mode & S_IFMT == S_IFDIR)
  }

  /// The modification time as a date.
  var modificationDate: Date { Date(timeIntervalSince1970: Double(modified) / 1_000_000_000) }

  static func == (lhs: FileSignature, rhs: FileSignature) -> Bool {
    lhs.inode == rhs.inode && lhs.size == rhs.size && lhs.modified == rhs.modified
  }

  func hash(into hasher: inout Hasher) {
    hasher.combine(inode)
    hasher.combine(size)
    hasher.combine(modified)
  }

  /// The kernel's coarse real-time clock, the one it stamps `ctime` with: a time taken before a
  /// read is never later than the `ctime` of a write that follows the read.
  static func coarseNow() -> Time {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME_COARSE, &now)
    return time(now)
  }

  static func time(_ value: timespec) -> Time {
    value.saturatingNanoseconds
  }
}
