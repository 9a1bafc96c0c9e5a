import QuireSyncProtocol

/// The synced tree in memory: each item's ``SyncedItem``, by identity, held compactly.
///
/// An agent holds a record of every item it has synced, so this is the memory that grows with
/// the drive. As a dictionary of ``SyncedItem`` values, a hundred thousand files took about
/// 900 bytes each: the bucket of a large value, a dictionary of members and an array of chunks
/// for every file. Here a bucket holds a reference, and a flat file of one chunk (almost every
/// file a first sync brings) is one object with its member inline, and its folder's path shared
/// with the other records of that folder: about 270 bytes with its identity. Packages and files
/// of several chunks keep their ``SyncedItem``.
///
/// The records are spread over ``shardCount`` dictionaries by their identity's hash. A
/// dictionary that grows holds its old and its new buckets at once: one dictionary of a hundred
/// thousand records held 3 MB more for that moment, the agent's peak; a shard's growth is a
/// sixty-fourth of it.
struct SyncedTree: Sendable {
  static let shardCount = 64
  private var shards = [[String: SyncedRecord]](repeating: [:], count: Self.shardCount)
  /// The folder strings the records share.
  private var folders = FolderNames()

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
    set {
      shards[Self.shard(id)][id] = newValue.map { SyncedRecord($0, folders: &folders) }
      // Folders no record is in any more (renamed, emptied) go once they outnumber those in use
      // by a thousand: a walk of the tree every so many new folders, not at every change.
      if folders.count > 1_024, folders.count > 2 * count + 1_024 {
        folders = FolderNames()
        for record in values where !record.folder.isEmpty { folders.hold(record.folder) }
      }
    }
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

  /// How many folder strings its records share (``FolderNames``).
  var folderCount: Int { folders.count }

  /// Whether it holds `id`.
  func contains(_ id: String) -> Bool { record(id) != nil }
}
