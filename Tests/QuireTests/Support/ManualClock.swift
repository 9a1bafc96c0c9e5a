import Synchronization

/// A clock that moves only when a test advances it, so autosave timing is tested without
/// sleeping. Sleepers resume, in deadline order, when the clock passes their deadline.
final class ManualClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  private struct Sleeper {
    var deadline: Instant
    var continuation: CheckedContinuation<Void, any Error>
  }

  private struct State {
    var now = Instant(offset: .zero)
    var sleepers: [Int: Sleeper] = [:]
    var nextID = 0
    var sleepWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
  }

  private let state = Mutex(State())

  var now: Instant { state.withLock { $0.now } }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let id = state.withLock { state in
      state.nextID += 1
      return state.nextID
    }
    try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation {
        (continuation: CheckedContinuation<Void, any Error>) in
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
          guard deadline > state.now else {
            continuation.resume()
            return []
          }
          state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
          let count = state.sleepers.count
          let ready = state.sleepWaiters.filter { $0.count <= count }.map(\.continuation)
          state.sleepWaiters.removeAll { $0.count <= count }
          return ready
        }
        ready.forEach { $0.resume() }
      }
    } onCancel: {
      let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
      sleeper?.continuation.resume(throwing: CancellationError())
    }
  }

  /// Moves the clock forward and wakes every sleeper whose deadline has come.
  func advance(by duration: Duration) {
    let due = state.withLock { state -> [Sleeper] in
      state.now = state.now.advanced(by: duration)
      let now = state.now
      let due = state.sleepers.filter { $0.value.deadline <= now }
      for key in due.keys { state.sleepers[key] = nil }
      return due.values.sorted { $0.deadline < $1.deadline }
    }
    due.forEach { $0.continuation.resume() }
  }

  /// Returns once at least `count` tasks are sleeping on this clock.
  func waitForSleepers(_ count: Int = 1) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let ready = state.withLock { state -> Bool in
        if state.sleepers.count >= count { return true }
        state.sleepWaiters.append((count, continuation))
        return false
      }
      if ready { continuation.resume() }
    }
  }

  /// How many tasks are sleeping on this clock.
  var sleeperCount: Int { state.withLock { $0.sleepers.count } }
}
