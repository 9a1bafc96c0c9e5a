import QuireSyncProtocol

/// One item of a ``SyncedTree``: what every loop over the tree reads (identity, path, kind,
/// revision, whether it is a placeholder, its size) stored as such, and its members inline when
/// it is a flat file of one chunk, the common case.
///
/// Its path is held as its folder, one string shared by the records of that folder
/// (``FolderNames``), and its name, which Swift keeps inline up to 15 bytes: a drive's path
/// strings took 64 bytes a file, its names usually none.
///
/// The fields are in the order that packs them (a class's are laid out as declared): 134 bytes
/// with the object's header, which glibc serves from a 144-byte chunk.
final class SyncedRecord: Sendable {
  let id: String
  /// The folder of its path ("" at the top of the folder synced).
  let folder: String
  /// The last part of its path.
  let name: String
  let revision: Int64
  let kind: ItemKind
  /// Whether it is only a placeholder on this device.
  let isPlaceholder: Bool
  private let storage: Members

  private enum Members: Sendable {
    /// One member at "", whose only chunk is all its bytes (the chunk's hash is the member's),
    /// with the stat it was synced at, of that size.
    case file(hash: ContentHash, size: Int, modified: Int64, mode: UInt32, racy: Bool)
    /// Anything else, as ``SyncedItem`` has them.
    case any([String: SyncedItem.Member])
  }

  /// The record of `item`, its folder's string taken from `folders`.
  init(_ item: SyncedItem, folders: inout FolderNames) {
    id = item.id
    // Cut at the last slash's byte: a name may begin with a character that joins onto the one
    // before it (a combining accent), which `String`'s steps would take for part of the slash.
    // A slash at the start (not a valid path, kept as it is) cuts nothing.
    let bytes = item.path.utf8
    let slash = bytes.lastIndex(of: UInt8(ascii: "/")).flatMap { $0 == bytes.startIndex ? nil : $0 }
    folder = slash.map { folders.shared(item.path[..<$0]) } ?? ""
    name = slash.map { String(item.path[bytes.index(after: $0)...]) } ?? item.path
    kind = item.kind
    revision = item.revision
    isPlaceholder = item.isPlaceholder
    if item.members.count == 1, let member = item.members[""], member.chunks.count == 1,
      member.chunks[0].hash == member.hash, member.local != .inCloud,
      member.local.size == member.chunks[0].size,
      let mode = UInt32(exactly: member.local.mode)
    {
      storage = .file(
        hash: member.hash, size: member.local.size,
        modified: member.local.modifiedNanoseconds, mode: mode, racy: member.racy)
    } else {
      storage = .any(item.members)
    }
  }

  /// The record of `item`, its folder's string its own.
  convenience init(_ item: SyncedItem) {
    var folders = FolderNames()
    self.init(item, folders: &folders)
  }

  /// Its path in the folder synced.
  var path: String { folder.isEmpty ? name : folder + "/" + name }

  /// Whether its path is `path`, byte for byte (as the file system tells names apart), told
  /// without building its own.
  func hasPath(_ path: String) -> Bool {
    if folder.isEmpty { return path.utf8.elementsEqual(name.utf8) }
    let bytes = path.utf8
    guard bytes.count == folder.utf8.count + 1 + name.utf8.count else { return false }
    return bytes.starts(with: folder.utf8)
      && bytes.dropFirst(folder.utf8.count).first == UInt8(ascii: "/")
      && bytes.dropFirst(folder.utf8.count + 1).elementsEqual(name.utf8)
  }

  /// The item as a value.
  var item: SyncedItem {
    SyncedItem(
      id: id, path: path, kind: kind, revision: revision, members: memberValues,
      isPlaceholder: isPlaceholder)
  }

  /// Its members, by path in the package ("" for a flat file).
  var memberValues: [String: SyncedItem.Member] {
    switch storage {
    case .file(let hash, let size, let modified, let mode, let racy):
      var member = SyncedItem.Member(
        local: LocalItem.Member(size: size, mode: Int(mode), modifiedNanoseconds: modified),
        hash: hash, chunks: [ChunkReference(hash: hash, size: size)])
      member.racy = racy
      return ["": member]
    case .any(let members): return members
    }
  }

  /// Its size in bytes, every member counted.
  var size: Int {
    switch storage {
    case .file(_, let size, _, _, _): size
    case .any(let members): members.values.reduce(0) { $0 + $1.size }
    }
  }

  /// The stat of its only member, at "" (a flat file's), or nil if it has others.
  var soleMemberStat: LocalItem.Member? {
    switch storage {
    case .file(_, let size, let modified, let mode, _):
      LocalItem.Member(size: size, mode: Int(mode), modifiedNanoseconds: modified)
    case .any(let members): members.count == 1 ? members[""]?.local : nil
    }
  }

  /// Whether `item` on disk is still exactly this (``SyncedItem/matches(_:)``), read without
  /// building the item for a flat file: a push asks it of every file it scans.
  func matches(_ item: LocalItem) -> Bool {
    switch storage {
    case .file(_, let size, let modified, let mode, let racy):
      hasPath(item.path) && item.kind == kind && item.members.count == 1
        && item.members[""] == LocalItem.Member(
          size: size, mode: Int(mode), modifiedNanoseconds: modified) && !racy
    case .any: self.item.matches(item)
    }
  }

  /// Whether any of its members is in the cloud only.
  var hasMembersInCloud: Bool {
    switch storage {
    case .file: false  // `LocalItem.Member.inCloud` has no size, so it is never held here
    case .any(let members): members.values.contains { $0.local == .inCloud }
    }
  }
}
