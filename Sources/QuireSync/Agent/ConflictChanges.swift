import QuireSyncProtocol

/// Which unresolved conflict versions each item gained, and which were resolved, in a page of
/// journal entries: a decision from the entries and what this device knew, so a test can ask it
/// about any history. The agent then tells each item's presenters (an open document goes
/// `inConflict`, or out of it, on every device).
struct ConflictChanges: Equatable, Sendable {
  /// One item's change.
  struct Change: Equatable, Sendable {
    /// The item's identity.
    var item: String
    /// The conflict versions it gained, in order.
    var gained: [Int64]
    /// The conflict versions resolved since, in order.
    var resolved: [Int64]
  }

  /// The items whose unresolved conflicts changed, in the order of their identities.
  var changes: [Change]
  /// What this device knows after the page: each item's unresolved conflict versions (an item
  /// with none is absent).
  var known: [String: [Int64]]

  /// The changes in `entries` (the journal reports an item's unresolved conflicts on every
  /// entry of it, so its last entry in the page says what holds now), given what this device
  /// knew (`known`). A folder's move is no item's entry.
  init(_ entries: [ChangeEntry], known: [String: [Int64]]) {
    var latest: [String: [Int64]] = [:]
    for entry in entries where entry.folderMove == nil {
      latest[entry.item] = entry.unresolvedConflicts ?? []
    }
    var known = known
    var changes: [Change] = []
    for (item, now) in latest.sorted(by: { $0.key < $1.key }) {
      let before = known[item] ?? []
      guard Set(now) != Set(before) else { continue }  // the same versions, in any order
      known[item] = now.isEmpty ? nil : now
      changes.append(
        Change(
          item: item, gained: Set(now).subtracting(before).sorted(),
          resolved: Set(before).subtracting(now).sorted()))
    }
    self.changes = changes
    self.known = known
  }
}
