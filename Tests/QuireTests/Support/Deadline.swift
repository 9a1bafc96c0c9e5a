/// Runs `body` and returns its result as soon as it finishes, or nil if it has not finished
/// within `seconds`. This is how tests wait for an event: the wait ends when the event arrives,
/// and the deadline only bounds a test that would otherwise hang.
func withDeadline<T: Sendable>(
  seconds: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
  try await withThrowingTaskGroup(of: T?.self) { group in
    group.addTask { try await body() }
    group.addTask {
      try await Task.sleep(for: .seconds(seconds))  // the deadline timer, not a wait for an event
      return nil
    }
    let first = try await group.next() ?? nil
    group.cancelAll()
    return first
  }
}
