import Foundation
import QuireSyncProtocol

/// Items held while a program's write to them is put back late (``LatePutBack``).
///
/// The put-back brings back bytes written on the revision the replaced file held, and the
/// synced record stays on that revision so they are uploaded on it and merged. If the agent
/// went on meanwhile (uploaded the downloaded file as this device's change, recorded the merged
/// revision), the late put-back would land as an edit of the newer revision and undo what the
/// download brought. So until each put-back is over, a push leaves the item as it is, and a
/// download of it stops with `changedWhileSyncing`; then a push sends what was put back.
extension SyncAgent {
  /// Holds item `id` for `count` put-backs started by its download.
  func holdForPutBack(_ id: String, count: Int) {
    guard count > 0 else { return }
    putBacksPending[id, default: 0] += count
  }

  /// One put-back of item `id` is over: once none is left, a push sends what it put back.
  func putBackDone(_ id: String) {
    let left = (putBacksPending[id] ?? 0) - 1
    putBacksPending[id] = left == 0 ? nil : left
    if left <= 0 { request(push: true) }
  }

  /// Whether item `id` waits for a put-back.
  func isPuttingBack(_ id: String) -> Bool { (putBacksPending[id] ?? 0) > 0 }

  /// The error a download of an item waiting for a put-back stops with.
  func puttingBack(_ relative: String) -> SyncError {
    SyncError(
      .changedWhileSyncing,
      "“\(relative)” was written by another program while a newer version was downloaded; its write is put back and uploaded first."
    )
  }
}
