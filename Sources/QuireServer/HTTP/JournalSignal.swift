import Synchronization

/// Wakes the event streams of a container when a commit lands there. A wake-up carries no data:
/// each stream then reads the journal after its own cursor, so none can skip a commit.
///
/// With several replicas, a commit is also announced to the others (`announce`), whose
/// listeners call ``wake(_:)``, or ``wakeAll()`` when announcements may have been lost.
final class JournalSignal: Sendable {
  enum Wake: Sendable { case changed, keepAlive }

  private let listeners = Mutex<[String: [Int: AsyncStream<Wake>.Continuation]]>([:])
  private let counter = Atomic<Int>(0)
  private let announce: @Sendable (String) -> Void

  /// A signal that also passes each local commit's key to `announce`.
  init(announce: @escaping @Sendable (String) -> Void = { _ in }) {
    self.announce = announce
  }

  /// A stream of wake-ups for `key` (user and container), with a keep-alive every `interval`.
  func listen(_ key: String, keepAlive interval: Duration) -> AsyncStream<Wake> {
    let id = counter.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
    listeners.withLock { $0[key, default: [:]][id] = continuation }
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        continuation.yield(.keepAlive)
      }
    }
    continuation.onTermination = { [weak self] _ in
      ticker.cancel()
      self?.listeners.withLock { $0[key]?[id] = nil }
    }
    return stream
  }

  /// Wakes every stream of `key`, here and (through `announce`) on the other replicas.
  func notify(_ key: String) {
    wake(key)
    announce(key)
  }

  /// Wakes every stream of `key` in this process.
  func wake(_ key: String) {
    let continuations = listeners.withLock { Array(($0[key] ?? [:]).values) }
    for continuation in continuations { continuation.yield(.changed) }
  }

  /// Wakes every stream: each reads its journal after its cursor, so whatever it missed arrives.
  func wakeAll() {
    let continuations = listeners.withLock { $0.values.flatMap(\.values) }
    for continuation in continuations { continuation.yield(.changed) }
  }
}
