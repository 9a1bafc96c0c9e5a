import Synchronization

/// The outcome of a write queued on the state's writer (``SyncState/queueRecord(placeholders:advancingPast:)``),
/// awaited later.
///
/// GRDB's own asynchronous write suspends its caller until the write is done. A first sync must
/// go on placing the next pages while the last ones are recorded, and must queue each write at
/// once, so that it runs before every write the agent asks for after it. GRDB's callback write
/// does both; this is the small future its callback completes.
final class QueuedWrite: Sendable {
  private enum Stage {
    case running(waiting: [CheckedContinuation<Void, any Error>])
    case done(Result<Void, any Error>)
  }

  private let stage = Mutex<Stage>(.running(waiting: []))

  /// Settles the write with `result` and wakes whoever waits for it; later calls do nothing.
  func finish(_ result: Result<Void, any Error>) {
    let waiting = stage.withLock { stage -> [CheckedContinuation<Void, any Error>] in
      guard case .running(let waiting) = stage else { return [] }
      stage = .done(result)
      return waiting
    }
    for continuation in waiting { continuation.resume(with: result) }
  }

  /// Waits until the write is done, and throws its error if it failed. A write is not
  /// cancelled: a cancelled caller still waits for it, a transaction's time at most.
  func value() async throws {
    try await withCheckedThrowingContinuation { continuation in
      let settled = stage.withLock { stage -> Result<Void, any Error>? in
        switch stage {
        case .running(let waiting):
          stage = .running(waiting: waiting + [continuation])
          return nil
        case .done(let result):
          return result
        }
      }
      if let settled { continuation.resume(with: settled) }
    }
  }
}
