import QuireSyncProtocol
import Synchronization

/// Wakes the event streams of a container when a commit lands there. A wake-up carries no data:
/// each stream then reads the journal after its own cursor, so none can skip a commit.
///
/// With several replicas, a commit is also announced to the others (`announce`), whose
/// listeners call ``wake(_:)``, or ``wakeAll()`` when announcements may have been lost.
///
/// The streams of one container that wake for the same commit share one read of the journal
/// (``page(_:after:read:)``): with PostgreSQL every read is a few round trips, and each commit
/// wakes every device of the account.
final class JournalSignal: Sendable {
  enum Wake: Sendable { case changed, keepAlive }

  /// One read of a key's journal after a cursor, and the streams waiting for its page.
  private struct Flight {
    /// The key's wake count when the read began: it sees every commit woken for until then.
    var generation: Int
    var waiters: [CheckedContinuation<Result<ChangesPage, SyncError>?, Never>] = []
  }

  private let listeners = Mutex<[String: [Int: AsyncStream<Wake>.Continuation]]>([:])
  private let counter = Atomic<Int>(0)
  /// How many times each key was woken, and every key (``wakeAll()``).
  private let generations = Mutex<(keys: [String: Int], all: Int)>(([:], 0))
  private let flights = Mutex<[String: Flight]>([:])
  /// The streams each device holds (see ``StreamQuota``).
  private let quota: Mutex<StreamQuota>
  private let announce: @Sendable (String) -> Void

  /// A signal that also passes each local commit's key to `announce`.
  init(
    quota: StreamQuota = StreamQuota(), announce: @escaping @Sendable (String) -> Void = { _ in }
  ) {
    self.quota = Mutex(quota)
    self.announce = announce
  }

  /// One event stream's wake-ups, and the way to end them (the server shutting down).
  struct Listener: Sendable {
    /// Wake-ups, with a keep-alive every interval; they end with ``end()``.
    let wakes: AsyncStream<Wake>
    fileprivate let continuation: AsyncStream<Wake>.Continuation

    /// Ends ``wakes``, so the stream's response finishes.
    func end() { continuation.finish() }
  }

  /// Wake-ups for `key` (user and container) for a stream of `device`, with a keep-alive every
  /// `interval`. The device's oldest streams past its quota end (``StreamQuota``); streams count
  /// as the same stream when their `stream` (the key unless given: a share's own id) is.
  func listen(
    _ key: String, keepAlive interval: Duration, device: String, stream name: String? = nil
  ) -> Listener {
    let id = counter.add(1, ordering: .relaxed).newValue
    let (stream, continuation) = AsyncStream<Wake>.makeStream(bufferingPolicy: .bufferingNewest(1))
    listeners.withLock { $0[key, default: [:]][id] = continuation }
    let evicted = quota.withLock { $0.admit(id, key: name ?? key, signal: key, device: device) }
    let ended = listeners.withLock { listeners in
      evicted.compactMap { listeners[$0.signal]?[$0.id] }
    }
    for continuation in ended { continuation.finish() }
    let ticker = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        continuation.yield(.keepAlive)
      }
    }
    continuation.onTermination = { [weak self] _ in
      ticker.cancel()
      self?.listeners.withLock { $0[key]?[id] = nil }
      self?.quota.withLock { $0.remove(id, device: device) }
    }
    return Listener(wakes: stream, continuation: continuation)
  }

  /// Wakes every stream of `key`, here and (through `announce`) on the other replicas.
  func notify(_ key: String) {
    wake(key)
    announce(key)
  }

  /// Wakes every stream of `key` in this process.
  func wake(_ key: String) {
    generations.withLock { $0.keys[key, default: 0] += 1 }
    let continuations = listeners.withLock { Array(($0[key] ?? [:]).values) }
    for continuation in continuations { continuation.yield(.changed) }
  }

  /// Wakes every stream: each reads its journal after its cursor, so whatever it missed arrives.
  func wakeAll() {
    generations.withLock { $0.all += 1 }
    let continuations = listeners.withLock { $0.values.flatMap(\.values) }
    for continuation in continuations { continuation.yield(.changed) }
  }

  /// The page of `key`'s journal after `cursor`: from a read another stream of `key` began
  /// after this stream's last wake, if one is under way, else from `read`.
  func page(
    _ key: String, after cursor: Int64, read: () throws(SyncError) -> ChangesPage
  ) async throws(SyncError) -> ChangesPage {
    let generation = generations.withLock { $0.all + $0.keys[key, default: 0] }
    let flightKey = "\(key)#\(cursor)"
    let shared = await withCheckedContinuation { continuation in
      let joined = flights.withLock { flights in
        guard var flight = flights[flightKey], flight.generation >= generation else {
          return false
        }
        flight.waiters.append(continuation)
        flights[flightKey] = flight
        return true
      }
      if !joined { continuation.resume(returning: nil) }
    }
    if let shared { return try shared.get() }
    let leads = flights.withLock { flights in
      guard flights[flightKey] == nil else { return false }
      flights[flightKey] = Flight(generation: generation)
      return true
    }
    let result = Result { () throws(SyncError) in try read() }
    if leads {
      let waiters = flights.withLock { $0.removeValue(forKey: flightKey)?.waiters ?? [] }
      for waiter in waiters { waiter.resume(returning: result) }
    }
    return try result.get()
  }
}
