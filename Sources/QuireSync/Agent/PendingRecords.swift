import QuireSyncProtocol

/// What a pull placed and passed but has not recorded yet: placeholders of a first sync, and the
/// journal entries the cursor moves past, recorded together every few pages in one transaction
/// (``SyncState/record(placeholders:advancingPast:)``).
///
/// The items are the agent's in memory as soon as they are placed; the state learns them at
/// the next flush, which a pull makes before it applies an entry the long way, every ``limit``
/// entries, at its last page, and when it stops on an error or a cancellation. A crash before
/// that leaves hidden placeholders the next pull writes again, from the cursor before them.
///
/// Every ``limit`` entries the pull queues the flush (``queue(to:current:)``) and goes on
/// placing pages while the state's writer records them: recording a hundred thousand
/// placeholders took 3.3 s of a join's 11, all of it waited for. One queued flush at most is
/// running; the next flush of any kind waits for it first (``settle()``), and a failed one is
/// held again, as if it had never been tried.
struct PendingRecords: Sendable {
  /// The entries after which a pull records what it holds: about ten pages. (Two pages a
  /// transaction made a joining device's hundred thousand placeholders 1.3 s slower: random
  /// identities dirty a B-tree page per record, which a larger transaction shares.)
  static let limit = 10_000

  /// The placeholders' records, the very ones the agent's ``SyncedTree`` holds (a reference
  /// each, not a copy: ten pages of copies held 6 MB more).
  private(set) var placeholders: [SyncedRecord] = []
  private(set) var passed: [ChangeEntry] = []
  /// The flush queued last, with what it records, until it is known to have succeeded.
  private var queued: (write: QueuedWrite, placeholders: [SyncedRecord], passed: [ChangeEntry])?

  /// Whether the pull should record what it holds before going on.
  var isFull: Bool { passed.count >= Self.limit }

  mutating func add(placeholders records: [SyncedRecord]) { placeholders += records }

  mutating func pass(_ entry: ChangeEntry) { passed.append(entry) }

  /// Waits for the queued flush, if any. If it failed, what it was to record is held again
  /// (before what was held since, in the order it was placed), and its error is thrown.
  mutating func settle() async throws {
    guard let queued else { return }
    do {
      try await queued.write.value()
      self.queued = nil
    } catch {
      self.queued = nil
      placeholders = queued.placeholders + placeholders
      passed = queued.passed + passed
      throw error
    }
  }

  /// Records what is held in one transaction and forgets it; on a failure, holds it still. The
  /// caller has settled the queued flush first (``settle()``).
  ///
  /// A placeholder whose record in the agent is no longer the one placed is left out:
  /// `current` gives the agent's record of each item (the same object while it is unchanged),
  /// and whatever changed it recorded itself, which this must not overwrite. (The pull flushes
  /// before it applies any entry itself, and the agent's other work waits for the pull, so this
  /// is a guard, not a path taken today.)
  mutating func flush(to state: SyncState, current: (String) -> SyncedRecord?) throws {
    precondition(queued == nil, "a flush waits for the queued one (settle())")
    try state.record(
      placeholders: placeholders.filter { current($0.id) === $0 }, advancingPast: passed)
    placeholders = []
    passed = []
  }

  /// Waits for the queued transaction (``settle()``), then records what is held in one
  /// (``flush(to:current:)``): what a pull does before anything that must find the placed items
  /// recorded.
  nonisolated(nonsending) mutating func settleAndFlush(
    to state: SyncState, current: (String) -> SyncedRecord?
  ) async throws {
    try await settle()
    try flush(to: state, current: current)
  }

  /// Queues what is held as one transaction on the state's writer and returns at once; the
  /// caller has settled the previous one first (``settle()``). `current` as for
  /// ``flush(to:current:)``.
  mutating func queue(to state: SyncState, current: (String) -> SyncedRecord?) {
    precondition(queued == nil, "one queued flush at a time (settle())")
    let recorded = placeholders.filter { current($0.id) === $0 }
    queued = (state.queueRecord(placeholders: recorded, advancingPast: passed), recorded, passed)
    placeholders = []
    passed = []
  }
}
