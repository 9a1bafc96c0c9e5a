import Foundation
import Quire
import QuireSyncProtocol

extension SyncAgent {
  /// Tells the presenters of each item whose unresolved conflict versions changed in `entries`
  /// (the journal reports them on every entry of the item) which versions it gained and which
  /// were resolved: an open ``Quire/Document`` goes `inConflict`, or out of it, on every device.
  func announceConflicts(_ entries: [ChangeEntry]) {
    var latest: [String: [Int64]] = [:]
    for entry in entries where entry.folderMove == nil {
      latest[entry.item] = entry.unresolvedConflicts ?? []
    }
    for (item, now) in latest {
      let before = knownConflicts[item] ?? []
      guard now != before else { continue }
      knownConflicts[item] = now.isEmpty ? nil : now
      guard let path = synced.record(item)?.path else { continue }
      let coordinator = FileCoordinator()
      for gained in Set(now).subtracting(before).sorted() {
        coordinator.item(at: url(path), didGainVersion: String(gained))
      }
      for resolved in Set(before).subtracting(now).sorted() {
        coordinator.item(at: url(path), didResolveConflictVersion: String(resolved))
      }
    }
  }
}
