import Foundation
import Quire
import QuireSyncProtocol

extension SyncAgent {
  /// Tells the presenters of each item whose unresolved conflict versions changed in `entries`
  /// which versions it gained and which were resolved (``ConflictChanges``): an open
  /// ``Quire/Document`` goes `inConflict`, or out of it, on every device.
  func announceConflicts(_ entries: [ChangeEntry]) {
    let found = ConflictChanges(entries, known: knownConflicts)
    knownConflicts = found.known
    for change in found.changes {
      guard let path = synced.record(change.item)?.path else { continue }
      let coordinator = FileCoordinator()
      for gained in change.gained {
        coordinator.item(at: url(path), didGainVersion: String(gained))
      }
      for resolved in change.resolved {
        coordinator.item(at: url(path), didResolveConflictVersion: String(resolved))
      }
    }
  }
}
