/// The drive's agent's looks at what is shared with the account, as waits need them
/// (``SyncAgent/lookAtShares()``): a wait asks for a look that begins after it asked, and goes
/// on once such a look has ended. Pure bookkeeping; the look itself is
/// ``SyncAgent/followShares()``'s.
struct ShareLooks {
  /// Looks asked for by waits, counted.
  private(set) var asked = 0
  /// The waits for a look, each with the count of asks that look must cover.
  private var waiting: [(covering: Int, continuation: CheckedContinuation<Bool, Never>)] = []
  /// Whether looking has stopped for good (the agent's run ended): waits go on at once.
  private(set) var ended = false
  /// Asks ``SyncAgent/followShares()`` for a look, while it runs.
  var asker: AsyncStream<Void>.Continuation?

  /// Records a wait for a look begun after now; returns false (and does not keep it) if looking
  /// has ended, in which case the caller goes on.
  mutating func ask(_ continuation: CheckedContinuation<Bool, Never>) -> Bool {
    guard !ended else { return false }
    asked += 1
    waiting.append((asked, continuation))
    asker?.yield()
    return true
  }

  /// A look that began when `asked` was `covering` has ended, having heard the server (`heard`)
  /// or not: the waits it covers go on, with `heard`.
  mutating func finished(covering: Int, heard: Bool) {
    let done = waiting.filter { $0.covering <= covering }
    waiting.removeAll { $0.covering <= covering }
    for each in done { each.continuation.resume(returning: heard) }
  }

  /// Looking has stopped: every wait goes on, as for an agent whose run ended.
  mutating func end() {
    ended = true
    asker = nil
    let done = waiting
    waiting = []
    for each in done { each.continuation.resume(returning: true) }
  }
}
