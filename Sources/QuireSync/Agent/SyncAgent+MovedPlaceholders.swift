import Foundation
import Quire
import QuireSyncProtocol

/// Placeholders a user moved: the scan skips hidden names, so a placeholder moved or renamed
/// (on its own, or with its folder) is found by its identity here, not taken for deleted.
extension SyncAgent {
  /// Where the synced placeholders `missing` (no longer at their paths) are now, for those
  /// found elsewhere in the folder. One walk of the folder, only when one is missing; one read
  /// of each placeholder file that is not at a synced placeholder's path.
  func movedPlaceholders(_ missing: [SyncedItem]) -> [(known: SyncedItem, path: String)] {
    guard !missing.isEmpty else { return [] }
    var wanted = Dictionary(missing.map { ($0.id, $0) }) { first, _ in first }
    let placed = Set(
      synced.values.filter { $0.isPlaceholder && wanted[$0.id] == nil }.map(\.path))
    var found: [(known: SyncedItem, path: String)] = []
    for file in LocalScanner.placeholders(root: root) where !placed.contains(file.document) {
      guard let identity = try? CloudPlaceholder.read(at: url(file.placeholder)).identity,
        let known = wanted.removeValue(forKey: identity)
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
        stamped(
          CommitRequest(
            commit: UUID().uuidString, item: move.known.id, kind: move.known.kind,
            path: "Documents/" + move.path, base: move.known.revision, change: ManifestChange()))
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
