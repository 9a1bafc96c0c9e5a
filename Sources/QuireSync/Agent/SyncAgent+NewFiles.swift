import Foundation
import QuireSyncProtocol

extension SyncAgent {
  /// Brings the page's new flat documents — new to this device, not in the folder, their whole
  /// manifest and bytes already prefetched — in one batch (``NewFilesWriter``) and records them
  /// in one transaction. The rest of the page (packages, changes, moves, deletions, anything the
  /// batch could not place) is applied entry by entry.
  ///
  /// - Returns: the journal sequences of the entries placed, which need only the cursor moved.
  func placeNewFiles(
    _ entries: [ChangeEntry], unsynced: [String: LocalItem], prefetched: Prefetched
  ) async throws -> Set<Int64> {
    var files: [NewFilesWriter.File] = []
    var chosen: [(entry: ChangeEntry, member: ManifestMember)] = []
    var paths = Set<String>()
    for entry in entries
    where !entry.conflict && !entry.deleted && entry.isInDocumentsScope
      && !synced.contains(entry.item) && unsynced[entry.item] == nil
    {
      guard let manifest = prefetched.manifests[entry.item], manifest.revision == entry.revision,
        manifest.since == nil, manifest.kind == .file, manifest.change.upserted.count == 1,
        let member = manifest.change.upserted.first, member.path.isEmpty,
        member.chunks.allSatisfy({ prefetched.chunks[$0.hash] != nil }),
        manifest.path.hasPrefix("Documents/"), !keepsInCloud(manifest)
      else { continue }
      let relative = String(manifest.path.dropFirst("Documents/".count))
      // A path this device refuses, or one the page names twice, goes the long way, where it
      // gets its error or a free name.
      guard (try? SyncPath.check(relative, what: "item path")) != nil,
        paths.insert(relative).inserted,
        !FileManager.default.fileExists(atPath: url(relative).path)
      else { continue }
      files.append(NewFilesWriter.File(identity: entry.item, relative: relative, member: member))
      chosen.append((entry, member))
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
        let (entry, member) = chosen[index]
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
