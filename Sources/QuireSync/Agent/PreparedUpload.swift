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

  init(item: LocalItem, base: SyncedItem?, snapshots: [MemberSnapshot], removed: [String]) {
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
        local: local, hash: snapshot.hash, chunks: snapshot.chunks)
    }
    self.members = members
    request = CommitRequest(
      commit: UUID().uuidString, item: item.id, kind: item.kind, path: "Documents/" + item.path,
      base: base?.revision, change: ManifestChange(upserted: upserted, removed: removed))
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
