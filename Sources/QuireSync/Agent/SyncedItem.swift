import QuireSyncProtocol

/// The synced tree's record of one item: the last state this device and the server agreed on,
/// the base of the next upload and of every merge.
struct SyncedItem: Sendable, Equatable {
  /// A member as last synced: what the server holds and the local stat it had then.
  struct Member: Sendable, Equatable, Codable {
    var local: LocalItem.Member
    var hash: ContentHash
    var chunks: [ChunkReference]

    /// Its size in bytes (the sum of its chunks: known whether or not it is on this device).
    var size: Int { chunks.reduce(0) { $0 + $1.size } }
  }

  var id: String
  var path: String
  var kind: ItemKind
  var revision: Int64
  var members: [String: Member]
  /// Whether it is only a ``Quire/CloudPlaceholder`` on this device (its members as the server
  /// has them, with no local stat).
  var isPlaceholder = false

  /// Its size in bytes, every member counted.
  var size: Int { members.values.reduce(0) { $0 + $1.size } }

  /// The paths of its members that are in the cloud only.
  var membersInCloud: [String] {
    members.filter { $0.value.local == .inCloud }.keys.sorted()
  }

  /// Whether `item` on disk is still exactly this (path and every member's stat).
  func matches(_ item: LocalItem) -> Bool {
    item.path == path && item.kind == kind && item.members.count == members.count
      && item.members.allSatisfy { members[$0.key]?.local == $0.value }
  }
}
