import Synchronization

/// What a download tells of its files put back late (``ReplacedFiles``): a program still had
/// one open for writing when the download replaced it, and a thread of its own puts it back
/// once the program closes it. How many it started, and a call when each is done.
final class LatePutBack: Sendable {
  private let started = Mutex(0)
  private let done: @Sendable () -> Void

  /// `done` is called once for each put-back started, when it is over.
  init(done: @escaping @Sendable () -> Void = {}) { self.done = done }

  /// How many put-backs the download started.
  var count: Int { started.withLock { $0 } }

  /// For ``ReplacedFiles/restoreOverwritten(waiting:restored:)``: one more started.
  var waiting: (String) -> Void { { [self] _ in started.withLock { $0 += 1 } } }

  /// For ``ReplacedFiles/restoreOverwritten(waiting:restored:)``: one is over.
  var restored: @Sendable (String) -> Void { { [done] _ in done() } }
}
