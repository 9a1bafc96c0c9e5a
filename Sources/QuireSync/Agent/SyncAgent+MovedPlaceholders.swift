import Foundation
import Quire
import QuireSyncProtocol

/// Placeholders a user moved: the scan skips hidden names, so a placeholder moved or renamed
/// (on its own, or with its folder) is found by its identity here, not taken for deleted.
extension SyncAgent {
  /// The synced placeholders that are no longer at their paths but elsewhere in the folder,
  /// with where they are now. One walk of the folder, only when a placeholder is missing; one
  /// read of each placeholder file that is not at a synced placeholder's path.
  func movedPlaceholders() -> [(known: SyncedItem, path: String)] {
    var missing: [String: SyncedItem] = [:]
    var placed = Set<String>()
    for known in synced.values where known.isPlaceholder {
      if placeholderExists(known) { placed.insert(known.path) } else { missing[known.id] = known }
    }
    guard !missing.isEmpty else { return [] }
    var found: [(known: SyncedItem, path: String)] = []
    for file in LocalScanner.placeholders(root: root) where !placed.contains(file.document) {
      guard let identity = try? CloudPlaceholder.read(at: url(file.placeholder)).identity,
        let known = missing.removeValue(forKey: identity)
      else { continue }
      found.append((known, file.document))
    }
    return found
  }

  /// Commits the moves of placeholders `moves` (their items' new paths, nothing else), a batch
  /// per ``CommitBatch/maximumCount``, and records those that took the path asked for. One the
  /// server merged or named otherwise is brought as the pull gives it.
  func commitPlaceholderMoves(_ moves: [(known: SyncedItem, path: String)]) async throws {
    for start in stride(from: 0, to: moves.count, by: CommitBatch.maximumCount) {
      let batch = moves[start..<min(start + CommitBatch.maximumCount, moves.count)]
      let requests = batch.map { move in
        CommitRequest(
          commit: UUID().uuidString, item: move.known.id, kind: move.known.kind,
          path: "Documents/" + move.path, base: move.known.revision, change: ManifestChange())
      }
      let answers = try await client.commit(batch: requests)
      var records: [(item: SyncedItem, changed: [String], removed: [String])] = []
      for ((move, request), answer) in zip(zip(batch, requests), answers)
      where answer.status == .current && (answer.path ?? request.path) == request.path {
        var record = move.known
        record.path = move.path
        record.revision = answer.revision
        records.append((record, [], []))
      }
      try state.record(records, clearingStatus: true)
      for record in records { synced[record.item.id] = record.item }
    }
  }
}
