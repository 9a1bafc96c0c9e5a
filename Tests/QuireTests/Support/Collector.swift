/// Values arriving from another task, and a wait — ended by the arrival itself, bounded by a
/// deadline — until they satisfy a condition.
actor Collector<Value: Sendable> {
  private(set) var values: [Value] = []
  private var waiters:
    [(condition: ([Value]) -> Bool, continuation: CheckedContinuation<Void, Never>)] = []

  func append(_ value: Value) {
    values.append(value)
    let ready = waiters.filter { $0.condition(values) }
    waiters.removeAll { $0.condition(values) }
    for waiter in ready { waiter.continuation.resume() }
  }

  /// Waits until `condition` holds of the values, or `seconds` pass; returns the values then.
  func wait(seconds: Double = 10, until condition: @escaping @Sendable ([Value]) -> Bool) async
    -> [Value]
  {
    if condition(values) { return values }
    let arrived = Task { await self.suspend(until: condition) }
    _ = await withTaskGroup(of: Void.self) { group in
      group.addTask { await arrived.value }
      group.addTask { try? await Task.sleep(for: .seconds(seconds)) }  // the deadline only
      await group.next()
      group.cancelAll()
    }
    releaseAll()
    return values
  }

  private func suspend(until condition: @escaping ([Value]) -> Bool) async {
    if condition(values) { return }
    await withCheckedContinuation { waiters.append((condition, $0)) }
  }

  private func releaseAll() {
    let all = waiters
    waiters.removeAll()
    for waiter in all { waiter.continuation.resume() }
  }
}
