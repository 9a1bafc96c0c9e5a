import Foundation
import QuireCore
import QuireSyncProtocol

extension SyncAgent {
  /// Brings the page's new flat documents that ``NewItemsChoice`` chose (`chosen`; their whole
  /// manifest and bytes already prefetched) in one batch (``NewFilesWriter``), those whose path
  /// is free here, and records them in one transaction. The rest of the page (packages,
  /// changes, moves, deletions, anything the batch could not place) is applied entry by entry.
  ///
  /// - Returns: the journal sequences of the entries placed, which need only the cursor moved.
  func placeNewFiles(_ chosen: [NewItemsChoice.Chosen], prefetched: Prefetched) async throws
    -> Set<Int64>
  {
    // A path taken here goes the long way, where it gets its free name.
    let chosen = chosen.filter { (try? Sys.exists(url($0.relative).path)) == false }
    let files = chosen.map {
      NewFilesWriter.File(
        identity: $0.entry.item, relative: $0.relative, member: $0.manifest.change.upserted[0])
    }
    guard files.count > 1 else { return [] }
    state.setStatus(files.map { ($0.identity, $0.relative) }, state: .downloading)
    let chunks = prefetched.chunks
    let now = fileSystemNow()  // before the writes: see SyncedItem.Member.racy
    // Each group is recorded as soon as its names appear, before anything can stop the agent
    // (a cancelled share, a failed group): a named file with an identity and no record would
    // come back as a new document of this device's.
    let placed = try await NewFilesWriter(folder: root).place(files) { hash in
      guard let bytes = chunks[hash] else {
        throw SyncError(.internalError, "Chunk \(hash) was not prefetched.")
      }
      return bytes
    } record: { group in
      var records: [(item: SyncedItem, changed: [String], removed: [String])] = []
      for (index, local) in group.sorted(by: { $0.key < $1.key }) {
        let entry = chosen[index].entry
        let member = chosen[index].manifest.change.upserted[0]
        let record = SyncedItem(
          id: entry.item, path: files[index].relative, kind: .file, revision: entry.revision,
          members: [
            "": SyncedItem.Member(
              local: local, hash: member.hash, chunks: member.chunks, checkedAt: now)
          ])
        records.append((record, [""], []))
      }
      try state.record(records, clearingStatus: true)
      for record in records {
        synced[record.item.id] = record.item
        removeStalePlaceholder(of: record.item.id, at: record.item.path)
      }
    }
    return Set(placed.keys.map { chosen[$0].entry.sequence })
  }
}
