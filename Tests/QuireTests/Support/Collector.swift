/// Values arriving from another task, and a wait — ended by the arrival itself, bounded by a
/// deadline — until they satisfy a condition.
actor Collector<Value: Sendable> {
  private(set) var values: [Value] = []
  private var waiters:
    [Int: (condition: ([Value]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = [:]
  private var nextWaiter = 0

  func append(_ value: Value) {
    values.append(value)
    for (id, waiter) in waiters where waiter.condition(values) {
      waiters[id] = nil
      waiter.continuation.resume()
    }
  }

  /// Waits until `condition` holds of the values, or `seconds` pass; returns the values then.
  func wait(seconds: Double = 60, until condition: @escaping @Sendable ([Value]) -> Bool) async
    -> [Value]
  {
    if condition(values) { return values }
    let id = nextWaiter
    nextWaiter += 1
    // The deadline ends only this wait: the waiter is resumed by the arrival or by the timer,
    // whichever comes first.
    let deadline = Task {
      try? await Task.sleep(for: .seconds(seconds))  // the deadline only
      self.release(id)
    }
    await withCheckedContinuation { waiters[id] = (condition, $0) }
    deadline.cancel()
    return values
  }

  private func release(_ id: Int) {
    waiters.removeValue(forKey: id)?.continuation.resume()
  }
}
