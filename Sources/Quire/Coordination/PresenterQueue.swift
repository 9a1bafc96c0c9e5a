import Foundation
import Synchronization

/// The serial queue of one registered presenter: messages reach it one at a time, in the order
/// they were sent (the role of NSFilePresenter's `presentedItemOperationQueue`).
final class PresenterQueue: Sendable {
  typealias Completion = @Sendable (PresenterReply) -> Void
  private struct Job: Sendable {
    var message: PresenterMessage
    var reacquirers: ReacquirerList?
    var progress: DownloadProgress?
    var completion: Completion?
  }

  private let continuation: AsyncStream<Job>.Continuation

  /// Whether the presenter is a ``FileProvider``: only providers answer downloads and
  /// evictions; any other presenter is answered at once, never queued behind its other messages
  /// (a document waiting for its own member's download must not hold the download up).
  private let isProvider: Bool

  init(presenter: any FilePresenter) {
    let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
    self.continuation = continuation
    isProvider = presenter is any FileProvider
    Task(executorPreference: PresenterExecutor.shared) { [weak presenter] in
      for await job in stream {
        guard let presenter else {
          job.completion?(PresenterReply(error: nil))
          continue
        }
        if job.message.kind == .reacquire {
          for reacquirer in job.reacquirers?.takeAll() ?? [] { await reacquirer() }
          job.completion?(PresenterReply(error: nil))
          continue
        }
        if job.message.kind == .provide || job.message.kind == .evict {
          // A download may take minutes: it must not hold up the folder's other messages
          // (a deletion inside it waits for its answer). Providers serialize their own work.
          Task(executorPreference: PresenterExecutor.shared) {
            do {
              _ = try await job.message.deliver(to: presenter, progress: job.progress)
              job.completion?(PresenterReply(error: nil))
            } catch {
              job.completion?(PresenterReply(error: "\(error)"))
            }
          }
          continue
        }
        do {
          let reacquirer = try await job.message.deliver(to: presenter)
          if let reacquirer { job.reacquirers?.append(reacquirer) }
          job.completion?(PresenterReply(error: nil))
        } catch {
          job.completion?(PresenterReply(error: "\(error)"))
        }
      }
    }
  }

  /// Queues `message`; a relinquish adds its reacquirer to `reacquirers`, and `completion` runs
  /// once the presenter is done.
  func send(
    _ message: PresenterMessage, reacquirers: ReacquirerList? = nil,
    progress: DownloadProgress? = nil, completion: Completion? = nil
  ) {
    if !isProvider && (message.kind == .provide || message.kind == .evict) {
      completion?(PresenterReply(error: nil))
      return
    }
    continuation.yield(
      Job(message: message, reacquirers: reacquirers, progress: progress, completion: completion))
  }

  /// Ends the queue (the presenter was removed).
  func finish() { continuation.finish() }
}

/// The reacquirers collected during one coordinated access, run when it ends.
final class ReacquirerList: Sendable {
  private let items = Mutex<[FilePresenterReacquirer]>([])
  func append(_ reacquirer: @escaping FilePresenterReacquirer) {
    items.withLock { $0.append(reacquirer) }
  }
  func takeAll() -> [FilePresenterReacquirer] {
    items.withLock { items in
      let all = items
      items = []
      return all
    }
  }
}
