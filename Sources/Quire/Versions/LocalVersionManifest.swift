import Foundation

/// One saved version of a document in a ``LocalVersionStore``: its members, each naming the
/// blob that holds its bytes, and the stat that blob was copied from (so the next version
/// reuses the blob of a member that did not change, without reading it).
///
/// A version is stored whole (``base`` is nil), or as the change from the version kept just
/// before it (``base``): the paths it ``removed`` and the members it added or replaced. A
/// document's saves keep the second kind, which costs what the save changed;
/// ``LocalVersionTree`` puts a version back together.
struct LocalVersionManifest: Codable, Sendable, Equatable {
  /// One file, folder or link of the version (the path is "" for a flat file).
  struct Member: Codable, Sendable, Equatable {
    enum Kind: String, Codable, Sendable { case file, directory, link }
    var path: String
    var kind: Kind
    /// The blob holding a file's bytes.
    var blob: String?
    /// A link's target.
    var target: String?
    var size: Int64
    var mode: UInt32
    var modifiedNanos: Int64
    var inode: UInt64
    var changedNanos: Int64

    /// Whether `info` is the stat this member was copied from: same inode, size, and times
    /// (the change time cannot be set by a program, so an edit in place is always seen).
    func isUnchanged(_ info: stat) -> Bool {
      inode == UInt64(info.st_ino) && size == Int64(info.st_size)
        && modifiedNanos == Self.nanos(info.st_mtim) && changedNanos == Self.nanos(info.st_ctim)
        && mode == UInt32(info.st_mode & 0o7777)
    }

    static func nanos(_ time: timespec) -> Int64 {
      time.saturatingNanoseconds
    }

    /// The same contents, whatever the stat: what makes two versions equal.
    func sameContents(as other: Member) -> Bool {
      path == other.path && kind == other.kind && blob == other.blob && target == other.target
        && mode == other.mode
    }
  }

  /// When the version was saved (the newest modification among its members).
  var saved: Date
  /// The device that saved it.
  var device: String
  /// Whether the document is a package (a folder), not a flat file.
  var isPackage: Bool
  var members: [Member]
  /// The version this one is the change from; nil when this one lists every member.
  var base: String? = nil
  /// The paths gone since ``base`` (a folder with what is in it), applied before ``members``.
  var removed: [String]? = nil

  /// Whether the two versions hold the same contents.
  func sameContents(as other: LocalVersionManifest) -> Bool {
    isPackage == other.isPackage && members.count == other.members.count
      && zip(members, other.members).allSatisfy { $0.sameContents(as: $1) }
  }

  /// Whether the document on disk, as `current` lists it, is still this version; a member
  /// whose stat changed is asked of `sameBytes` (a save that rewrote the same bytes).
  func describes(
    _ current: [(path: String, info: stat)], sameBytes: (Member) -> Bool
  ) -> Bool {
    guard current.count == members.count else { return false }
    return zip(members, current).allSatisfy { member, disk in
      member.path == disk.path
        && (member.kind != .file || member.isUnchanged(disk.info) || sameBytes(member))
    }
  }

  var blobs: Set<String> { Set(members.compactMap(\.blob)) }
}
