import QuireSyncProtocol

/// The synced tree in memory: each item's ``SyncedItem``, by identity, held compactly.
///
/// An agent holds a record of every item it has synced, so this is the memory that grows with
/// the drive. As a dictionary of ``SyncedItem`` values, a hundred thousand files took about
/// 900 bytes each: the bucket of a large value, a dictionary of members and an array of chunks
/// for every file. Here a bucket holds a reference, and a flat file of one chunk (almost every
/// file a first sync brings) is one object with its member inline: about 330 bytes with its
/// identity and path. Packages and files of several chunks keep their ``SyncedItem``.
///
/// The records are spread over ``shardCount`` dictionaries by their identity's hash. A
/// dictionary that grows holds its old and its new buckets at once: one dictionary of a hundred
/// thousand records held 3 MB more for that moment, the agent's peak; a shard's growth is a
/// sixty-fourth of it.
struct SyncedTree: Sendable {
  static let shardCount = 64
  private var shards = [[String: SyncedRecord]](repeating: [:], count: Self.shardCount)

  /// An empty tree.
  init() {}

  private static func shard(_ id: String) -> Int {
    var hasher = Hasher()
    hasher.combine(id)
    return Int(UInt(bitPattern: hasher.finalize()) % UInt(shardCount))
  }

  /// The item with identity `id`, as a value to read or change; nil removes it.
  subscript(id: String) -> SyncedItem? {
    get { record(id)?.item }
    set { shards[Self.shard(id)][id] = newValue.map(SyncedRecord.init) }
  }

  /// The record of `id`, read without building its ``SyncedItem``.
  func record(_ id: String) -> SyncedRecord? { shards[Self.shard(id)][id] }

  /// Every record, in no order: what the whole-tree loops read (paths, placeholders, sizes)
  /// without building a ``SyncedItem`` for each.
  var values: FlattenSequence<[Dictionary<String, SyncedRecord>.Values]> {
    shards.map(\.values).joined()
  }

  /// Every identity.
  var keys: FlattenSequence<[Dictionary<String, SyncedRecord>.Keys]> {
    shards.map(\.keys).joined()
  }

  /// How many items the tree holds.
  var count: Int { shards.reduce(0) { $0 + $1.count } }

  /// Whether it holds no item.
  var isEmpty: Bool { shards.allSatisfy(\.isEmpty) }

  /// The records `isIncluded` takes, by identity.
  func filter(_ isIncluded: (String, SyncedRecord) throws -> Bool) rethrows -> [String:
    SyncedRecord]
  {
    var taken: [String: SyncedRecord] = [:]
    for shard in shards {
      for (id, record) in shard where try isIncluded(id, record) { taken[id] = record }
    }
    return taken
  }

  /// Whether it holds `id`.
  func contains(_ id: String) -> Bool { record(id) != nil }
}

/// One item of a ``SyncedTree``: what every loop over the tree reads (identity, path, kind,
/// revision, whether it is a placeholder, its size) stored as such, and its members inline when
/// it is a flat file of one chunk, the common case.
///
/// The fields are in the order that packs them (a class's are laid out as declared): 129 bytes
/// with the object's header, which glibc serves from a 144-byte chunk; with `kind` before
/// `revision`, as ``SyncedItem`` has them, 137 bytes took a 160-byte chunk.
final class SyncedRecord: Sendable {
  let id: String
  let path: String
  let revision: Int64
  let kind: ItemKind
  /// Whether it is only a placeholder on this device.
  let isPlaceholder: Bool
  private let storage: Members

  private enum Members: Sendable {
    /// One member at "", whose only chunk is all its bytes (the chunk's hash is the member's).
    case file(local: LocalItem.Member, hash: ContentHash, size: Int, racy: Bool)
    /// Anything else, as ``SyncedItem`` has them.
    case any([String: SyncedItem.Member])
  }

  init(_ item: SyncedItem) {
    id = item.id
    path = item.path
    kind = item.kind
    revision = item.revision
    isPlaceholder = item.isPlaceholder
    if item.members.count == 1, let member = item.members[""], member.chunks.count == 1,
      member.chunks[0].hash == member.hash
    {
      storage = .file(
        local: member.local, hash: member.hash, size: member.chunks[0].size, racy: member.racy)
    } else {
      storage = .any(item.members)
    }
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
    case .file(let local, let hash, let size, let racy):
      var member = SyncedItem.Member(
        local: local, hash: hash, chunks: [ChunkReference(hash: hash, size: size)])
      member.racy = racy
      return ["": member]
    case .any(let members): return members
    }
  }

  /// Its size in bytes, every member counted.
  var size: Int {
    switch storage {
    case .file(_, _, let size, _): size
    case .any(let members): members.values.reduce(0) { $0 + $1.size }
    }
  }

  /// The stat of its only member, at "" (a flat file's), or nil if it has others.
  var soleMemberStat: LocalItem.Member? {
    switch storage {
    case .file(let local, _, _, _): local
    case .any(let members): members.count == 1 ? members[""]?.local : nil
    }
  }

  /// Whether `item` on disk is still exactly this (``SyncedItem/matches(_:)``), read without
  /// building the item for a flat file: a push asks it of every file it scans.
  func matches(_ item: LocalItem) -> Bool {
    switch storage {
    case .file(let local, _, _, let racy):
      item.path == path && item.kind == kind && item.members.count == 1
        && item.members[""] == local && !racy
    case .any: self.item.matches(item)
    }
  }

  /// Whether any of its members is in the cloud only.
  var hasMembersInCloud: Bool {
    switch storage {
    case .file(let local, _, _, _): local == .inCloud
    case .any(let members): members.values.contains { $0.local == .inCloud }
    }
  }
}
