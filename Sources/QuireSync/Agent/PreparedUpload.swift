import Foundation
import QuireSyncProtocol

/// An item's change read and ready to send: its members' snapshots (read inside a coordinated
/// read), the commit that names them, and the synced record it becomes once committed.
struct PreparedUpload {
  typealias Sources = [ContentHash: (snapshot: MemberSnapshot, index: Int)]

  let item: LocalItem
  let base: SyncedItem?
  let snapshots: [MemberSnapshot]
  let removed: [String]
  let request: CommitRequest
  /// The members of the synced record after the commit.
  let members: [String: SyncedItem.Member]

  /// `now`: the file system's time once the snapshots were read (see
  /// ``SyncedItem/Member/racy``).
  init(
    item: LocalItem, base: SyncedItem?, snapshots: [MemberSnapshot], removed: [String],
    checkedAt now: Int64
  ) {
    self.item = item
    self.base = base
    self.snapshots = snapshots
    self.removed = removed
    var upserted: [ManifestMember] = []
    var members = base?.members ?? [:]
    for path in removed { members[path] = nil }
    for snapshot in snapshots {
      let local = item.members[snapshot.path]!
      upserted.append(
        snapshot.member(mode: local.mode, modified: Double(local.modifiedNanoseconds) / 1e9))
      members[snapshot.path] = SyncedItem.Member(
        local: local, hash: snapshot.hash, chunks: snapshot.chunks, checkedAt: now)
    }
    self.members = members
    request = CommitRequest(
      commit: UUID().uuidString, item: item.id, kind: item.kind, path: "Documents/" + item.path,
      base: base?.revision, change: ManifestChange(upserted: upserted, removed: removed))
  }

  /// Whether nothing is to be sent: members read again only because their stats did not prove
  /// them (racily clean) turned out as synced.
  var isUnchanged: Bool {
    guard let base, removed.isEmpty else { return false }
    return base.hasContents(
      of: item, hashes: Dictionary(snapshots.map { ($0.path, $0.hash) }) { first, _ in first })
  }

  /// Where each new chunk's bytes are.
  var sources: Sources {
    var sources: Sources = [:]
    for snapshot in snapshots {
      for (hash, index) in snapshot.locations where sources[hash] == nil {
        sources[hash] = (snapshot, index)
      }
    }
    return sources
  }

  /// The chunks of the synced revision: the server's already, so not asked about.
  var held: Set<ContentHash> {
    Set((base?.members.values).map { $0.flatMap { $0.chunks.map(\.hash) } } ?? [])
  }

  /// The synced record once `revision` is committed.
  func record(revision: Int64) -> SyncedItem {
    SyncedItem(
      id: item.id, path: item.path, kind: item.kind, revision: revision, members: members)
  }
}
