import Foundation
import QuireCore
import QuireSyncProtocol
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Whether any agent of this user is still at a step, told by a lock, never by time: each
/// running agent holds a shared lock on `sync.active`, beside the pause marker, while it is not
/// paused or is finishing the step in flight, and lets it go once it has stopped. So
/// `quire sync pause` knows the agents have stopped when it can take the lock exclusively, and
/// a killed agent's lock goes with it.
public enum SyncActivity {
  /// The lock file beside `marker`.
  static func lockFile(beside marker: URL) -> String {
    marker.deletingLastPathComponent().appendingPathComponent("sync.active").path
  }

  /// The agent's side: opens the lock file beside `marker` and takes it shared; nil if it could
  /// not (the pause then does not wait for this agent, which still pauses).
  static func hold(beside marker: URL) -> Int32? {
    let path = lockFile(beside: marker)
    guard (try? Sys.makeFolders(marker.deletingLastPathComponent().path, mode: 0o700)) != nil,
      let fd = try? Sys.open(path, O_RDWR | O_CREAT, mode: 0o600)
    else { return nil }
    // Held exclusively only by a pause, and only while the marker exists, when no agent takes
    // it: this waits at most for that pause to let it go.
    guard (try? Sys.lock(fd, LOCK_SH)) != nil else {
      Sys.close(fd)
      return nil
    }
    return fd
  }

  /// Waits, blocking the calling thread, until every agent of this user has stopped after the
  /// step it was at (the pause marker `marker` must exist already), for at most `timeout`.
  ///
  /// - Throws: ``SyncError`` `unavailable` if the lock file cannot be opened; `notInSync` if an
  ///   agent was still at a step when `timeout` passed (it stops once that step is done).
  public static func waitUntilStopped(
    marker: URL = SyncSettings.pauseMarker, timeout: Duration
  ) throws(SyncError) {
    let path = lockFile(beside: marker)
    let fd: Int32
    do {
      try Sys.makeFolders(marker.deletingLastPathComponent().path, mode: 0o700)
      fd = try Sys.open(path, O_RDWR | O_CREAT, mode: 0o600)
    } catch {
      throw SyncError(
        .unavailable, "Could not open “\(path)” to learn whether the agents stopped.",
        cause: error)
    }
    // flock has no timeout: a thread of its own waits for the lock, this one for the thread.
    // Whichever of the two gives up on the other first settles who closes the descriptor: a
    // lock the thread takes after the timeout is let go at once, never held.
    let taken = DispatchSemaphore(value: 0)
    let outcome = Outcome()
    Thread {
      let locked = (try? Sys.lock(fd, LOCK_EX)) != nil
      let now = locked ? Outcome.locked : Outcome.failed
      if !outcome.state.compareExchange(
        expected: Outcome.waiting, desired: now, ordering: .acquiringAndReleasing
      ).exchanged {
        Sys.close(fd)  // the caller gave up: let it go
      }
      taken.signal()
    }.start()
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    if taken.wait(timeout: .now() + seconds) != .success,
      outcome.state.compareExchange(
        expected: Outcome.waiting, desired: Outcome.abandoned, ordering: .acquiringAndReleasing
      ).exchanged
    {
      guard SyncSettings.isPaused(marker: marker) else {
        throw SyncError(
          .notInSync,
          "Syncing was resumed while the pause waited for an agent to finish its step.")
      }
      throw SyncError(
        .notInSync,
        "Syncing is paused, but an agent is still finishing a step after \(Int(seconds)) s: it stops once that step is done; quire sync status shows what it is at."
      )
    }
    let locked = outcome.state.load(ordering: .acquiring) == Outcome.locked
    Sys.close(fd)  // lets the lock go: the agents do not take it while paused
    guard locked else {
      throw SyncError(.unavailable, "Could not lock “\(path)” to learn whether the agents stopped.")
    }
  }

  /// Who settled the wait for the lock first: the thread (locked, or failed) or the caller
  /// (abandoned, at its timeout).
  private final class Outcome: Sendable {
    static let waiting = 0
    static let locked = 1
    static let failed = 2
    static let abandoned = 3
    let state = Atomic<Int>(waiting)
  }
}
