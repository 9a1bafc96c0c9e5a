import QuireSyncProtocol

/// What a pull placed and passed but has not recorded yet: placeholders of a first sync, and the
/// journal entries the cursor moves past, recorded together every few pages in one transaction
/// (``SyncState/record(placeholders:advancingPast:)``).
///
/// The items are the agent's in memory as soon as they are placed; the state learns them at
/// the next ``flush(to:)``, which a pull makes before it applies an entry the long way, every
/// ``limit`` entries, at its last page, and when it stops on an error or a cancellation. A
/// crash before that leaves hidden placeholders the next pull writes again, from the cursor
/// before them.
struct PendingRecords {
  /// The entries after which a pull records what it holds: about ten pages. (Two pages a
  /// transaction made a joining device's hundred thousand placeholders 1.3 s slower: random
  /// identities dirty a B-tree page per record, which a larger transaction shares.)
  static let limit = 10_000

  /// The placeholders' records, the very ones the agent's ``SyncedTree`` holds (a reference
  /// each, not a copy: ten pages of copies held 6 MB more).
  private(set) var placeholders: [SyncedRecord] = []
  private(set) var passed: [ChangeEntry] = []

  /// Whether the pull should record what it holds before going on.
  var isFull: Bool { passed.count >= Self.limit }

  mutating func add(placeholders records: [SyncedRecord]) { placeholders += records }

  mutating func pass(_ entry: ChangeEntry) { passed.append(entry) }

  /// Records what is held in one transaction and forgets it; on a failure, holds it still.
  ///
  /// A placeholder whose record in the agent is no longer the one placed is left out:
  /// `current` gives the agent's record of each item (the same object while it is unchanged),
  /// and whatever changed it recorded itself, which this must not overwrite. (The pull flushes before it applies any entry itself, and
  /// the agent's other work waits for the pull, so this is a guard, not a path taken today.)
  mutating func flush(to state: SyncState, current: (String) -> SyncedRecord?) throws {
    try state.record(
      placeholders: placeholders.filter { current($0.id) === $0 }, advancingPast: passed)
    placeholders = []
    passed = []
  }
}
