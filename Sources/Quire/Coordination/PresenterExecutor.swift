import Foundation
import Synchronization

/// The threads that deliver messages to presenters, apart from Swift's cooperative pool (the
/// role of each NSFilePresenter's own `presentedItemOperationQueue`).
///
/// A coordinated access made through the blocking ``FileCoordinator`` calls holds its thread
/// until every presenter answered. Were presenters served by the cooperative pool, whose size
/// is the number of cores, a few such accesses at once (or a child process the caller waits
/// for, itself coordinating an item this process presents) could hold every pool thread, and
/// no presenter could answer before the reply timeout: each access would stall ten seconds.
/// Presenter queues run on these threads instead; a presenter isolated to an actor (a
/// `@MainActor` document) still runs there, and comes back here after.
final class PresenterExecutor: TaskExecutor, Sendable {
  /// The one executor of this process.
  static let shared = PresenterExecutor(threads: 4)

  private let jobs = Mutex<[UnownedJob]>([])
  private let available = DispatchSemaphore(value: 0)

  private init(threads: Int) {
    for index in 0..<threads {
      BackgroundThread.start("quire-presenter-\(index)") { [self] in work() }
    }
  }

  func enqueue(_ job: UnownedJob) {
    jobs.withLock { $0.append(job) }
    available.signal()
  }

  private func work() {
    while true {
      available.wait()
      guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
      job.runSynchronously(on: asUnownedTaskExecutor())
    }
  }
}
