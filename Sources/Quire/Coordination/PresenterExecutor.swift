import Foundation

/// The threads that deliver messages to presenters, apart from Swift's cooperative pool (the
/// role of each NSFilePresenter's own `presentedItemOperationQueue`).
///
/// A coordinated access made through the blocking ``FileCoordinator`` calls holds its thread
/// until every presenter answered. Were presenters served by the cooperative pool, whose size
/// is the number of cores, a few such accesses at once (or a child process the caller waits
/// for, itself coordinating an item this process presents) could hold every pool thread, and
/// no presenter could answer before the reply timeout: each access would stall ten seconds.
/// Presenter queues run on a dispatch queue of their own instead, whose threads libdispatch adds
/// to when the pool's are all blocked (within about a second, not the ten of the timeout); a
/// presenter isolated to an actor (a `@MainActor` document) still runs there. Four threads of
/// Quire's own answered at once in that case, but made every ordinary delivery a thread wake-up
/// (a `Document` save measured 10–30 % slower); the queue costs nothing in the common case.
final class PresenterExecutor: TaskExecutor, Sendable {
  /// The one executor of this process.
  static let shared = PresenterExecutor()

  // A queue of its own (not a global one): libdispatch gives a custom queue threads outside the
  // cooperative pool, and more of them when some block.
  private let queue = DispatchQueue(label: "quire.presenters", attributes: .concurrent)

  func enqueue(_ job: UnownedJob) {
    queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
  }
}
