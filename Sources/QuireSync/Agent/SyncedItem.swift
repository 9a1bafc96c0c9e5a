import QuireSyncProtocol

/// The synced tree's record of one item: the last state this device and the server agreed on,
/// the base of the next upload and of every merge.
struct SyncedItem: Sendable, Equatable {
  /// A member as last synced: what the server holds and the local stat it had then.
  struct Member: Sendable, Equatable, Codable {
    var local: LocalItem.Member
    var hash: ContentHash
    var chunks: [ChunkReference]
    /// Whether `local` was taken in the file system's tick of its last write, or later (a time
    /// set ahead): a second write of the same size in that tick leaves the same stat, so the
    /// stat proves nothing and the contents are hashed again before they are trusted, as git
    /// and Syncthing do with "racily clean" files.
    var racy = false

    /// The member as synced, with its stat `local`; `now` is the file system's time taken
    /// before its contents were read or written (a write after that time gets a later time,
    /// unless `local`'s is not older).
    init(local: LocalItem.Member, hash: ContentHash, chunks: [ChunkReference], checkedAt now: Int64)
    {
      self.init(local: local, hash: hash, chunks: chunks)
      racy = Self.isRacy(local, at: now)
    }

    init(local: LocalItem.Member, hash: ContentHash, chunks: [ChunkReference]) {
      self.local = local
      self.hash = hash
      self.chunks = chunks
    }

    /// Whether a stat taken when the file system's time was `now` may not tell a later write.
    static func isRacy(_ local: LocalItem.Member, at now: Int64) -> Bool {
      local != .inCloud && local.modifiedNanoseconds >= now
    }

    /// Sets the stat of the file just written, `now` taken before the write.
    mutating func setLocal(_ local: LocalItem.Member, checkedAt now: Int64) {
      self.local = local
      racy = Self.isRacy(local, at: now)
    }

    private enum CodingKeys: String, CodingKey { case local, hash, chunks, racy }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      local = try container.decode(LocalItem.Member.self, forKey: .local)
      hash = try container.decode(ContentHash.self, forKey: .hash)
      chunks = try container.decode([ChunkReference].self, forKey: .chunks)
      racy = try container.decodeIfPresent(Bool.self, forKey: .racy) ?? false  // older records
    }

    /// Whether the file's stat `found` shows it unchanged since this record.
    func proves(_ found: LocalItem.Member) -> Bool { local == found && !racy }

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

  /// Whether `item` on disk is still exactly this (path and every member's stat, none of them
  /// racily clean).
  func matches(_ item: LocalItem) -> Bool {
    item.path == path && item.kind == kind && item.members.count == members.count
      && item.members.allSatisfy { members[$0.key]?.proves($0.value) == true }
  }

  /// Whether `item`'s contents are this record's, read again because a stat did not prove it:
  /// same path and kind, the same members with the same hashes, and the same stats apart from
  /// the record's doubt (a change of time or mode is a change to send).
  func hasContents(of item: LocalItem, hashes: [String: ContentHash]) -> Bool {
    item.path == path && item.kind == kind && item.members.count == members.count
      && item.members.allSatisfy { path, local in
        guard let member = members[path] else { return false }
        return member.local == local && (hashes[path] ?? member.hash) == member.hash
      }
  }
}
