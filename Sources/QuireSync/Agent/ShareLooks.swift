/// The drive's agent's looks at what is shared with the account, as waits need them
/// (``SyncAgent/lookAtShares()``): a wait asks for a look that begins after it asked, and goes
/// on once such a look has heard the server (one that could not, or found syncing paused,
/// leaves it for the next). Pure bookkeeping; the look itself is
/// ``SyncAgent/followShares()``'s.
struct ShareLooks {
  /// Looks asked for by waits, counted.
  private(set) var asked = 0
  /// The waits for a look, each with the count of asks that look must cover.
  private var waiting: [(covering: Int, continuation: CheckedContinuation<Void, Never>)] = []
  /// Whether looking has stopped for good (the agent's run ended): waits go on at once.
  private(set) var ended = false
  /// Asks ``SyncAgent/followShares()`` for a look, while it runs.
  var asker: AsyncStream<Void>.Continuation?

  /// Records a wait for a look begun after now; returns false (and does not keep it) if looking
  /// has ended, in which case the caller goes on.
  mutating func ask(_ continuation: CheckedContinuation<Void, Never>) -> Bool {
    guard !ended else { return false }
    asked += 1
    waiting.append((asked, continuation))
    asker?.yield()
    return true
  }

  /// Whether a wait is waiting for a look.
  var isWaiting: Bool { !waiting.isEmpty }

  /// A look that began when `asked` was `covering` has heard the server: the waits it covers
  /// go on.
  mutating func finished(covering: Int) {
    let done = waiting.filter { $0.covering <= covering }
    waiting.removeAll { $0.covering <= covering }
    for each in done { each.continuation.resume() }
  }

  /// Looking has stopped: every wait goes on, as for an agent whose run ended.
  mutating func end() {
    ended = true
    asker = nil
    let done = waiting
    waiting = []
    for each in done { each.continuation.resume() }
  }
}
