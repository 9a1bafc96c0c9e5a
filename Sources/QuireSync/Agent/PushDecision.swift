/// What a push makes of the items its scan found, decided from values alone: which items are a
/// share's agent's, which take a new identity or the identity of the synced item they
/// replaced, which wait, which are unchanged and which changed; then, once folder moves are
/// committed, which only moved, which were edited and which synced items are gone.
///
/// The agent gathers first what needs the disk or another agent (``Facts``), asks this, and
/// carries out the answer. Nothing here reads a file or awaits anything, so the rules a user
/// relies on (a scoped push never deletes what it did not look at; an identity is uploaded
/// once; a copy is a new document; another program's safe-save is the same document) are
/// tested on generated scans (`PushDecisionTests`).
struct PushDecision: Equatable, Sendable {
  /// What becomes of a scanned item's identity before it is compared with the synced tree.
  enum Identity: Equatable, Sendable {
    /// It keeps the identity it has.
    case kept
    /// A copy that kept another item's identity (`cp -a`, a file manager's duplicate, a copy
    /// of a shared document): it takes a new identity and is a new document.
    case new
    /// Another program's safe-save (a new file renamed over a synced one, without its
    /// identity): it takes the identity of the synced item it replaced, and is that document.
    case adopted(String)
  }

  /// What the push does with a scanned item.
  enum Disposition: Equatable, Sendable {
    /// Nothing: a share's agent syncs it (a shared document, or one in a shared folder,
    /// wherever the participant moved it).
    case othersToSync
    /// Nothing yet: a program's write to it is being put back, and is sent once it is.
    case waiting
    /// Nothing: it is as it was synced.
    case unchanged
    /// It is uploaded: new, edited, renamed or moved.
    case changed
  }

  /// The decision for one scanned item.
  struct Verdict: Equatable, Sendable {
    /// What becomes of its identity.
    var identity: Identity
    /// What the push does with it.
    var disposition: Disposition
  }

  /// What the agent found out, with the disk or other agents, about the scanned items.
  struct Facts: Sendable {
    /// Whether this is the drive's agent (a share's agent takes neither shares nor copies of
    /// shared documents into account).
    var isDrive = true
    /// The identities of the items other accounts share with this one.
    var sharedItems: Set<String> = []
    /// The scanned items (by their place in the scan) a share's agent syncs, where they are
    /// now.
    var sharesAgents: Set<Int> = []
    /// The scanned items (by their place in the scan) found to be copies: their identity's
    /// item is still where it was synced, or in a shared folder that did not move.
    var copies: Set<Int> = []
    /// Identities whose write a late put-back is restoring.
    var puttingBack: Set<String> = []
  }

  /// One verdict per scanned item, in the scan's order.
  var verdicts: [Verdict]
  /// The synced identities the scan accounts for, adopted ones included: those are not gone.
  var seen: Set<String>

  /// Decides what a push does with `items`, the scan in its order, against the synced tree
  /// (`record` reads it by identity, `byPath` by path, for the places the scan looked).
  init(
    items: [LocalItem], record: (String) -> SyncedRecord?, byPath: [String: SyncedRecord],
    facts: Facts
  ) {
    let scanned = Set(items.map(\.id))
    // Two files whose names are one as strings (two Unicode forms) may both stand where a
    // synced file was: the one named with its bytes takes its identity, wherever the scan
    // listed it.
    var exact: [String: Int] = [:]
    for (index, item) in items.enumerated() where record(item.id) == nil {
      if let replaced = byPath[item.path], replaced.hasPath(item.path), exact[replaced.id] == nil {
        exact[replaced.id] = index
      }
    }
    var seen = Set<String>()
    var verdicts: [Verdict] = []
    verdicts.reserveCapacity(items.count)
    for (index, item) in items.enumerated() {
      if facts.sharesAgents.contains(index) {
        verdicts.append(Verdict(identity: .kept, disposition: .othersToSync))
        continue
      }
      if facts.copies.contains(index) || seen.contains(item.id)
        || (facts.isDrive && facts.sharedItems.contains(item.id))
      {
        // A fresh identity: in no record and no other item, so it is changed (new).
        verdicts.append(Verdict(identity: .new, disposition: .changed))
        continue
      }
      var identity = Identity.kept
      var id = item.id
      if record(item.id) == nil, let replaced = byPath[item.path], !scanned.contains(replaced.id),
        !seen.contains(replaced.id), exact[replaced.id].map({ $0 == index }) ?? true
      {
        identity = .adopted(replaced.id)
        id = replaced.id
      }
      seen.insert(id)
      let disposition: Disposition
      if facts.puttingBack.contains(id) {
        disposition = .waiting
      } else if let known = record(id), known.matches(item) {
        disposition = .unchanged
      } else {
        disposition = .changed
      }
      verdicts.append(Verdict(identity: identity, disposition: disposition))
    }
    self.verdicts = verdicts
    self.seen = seen
  }

  /// The synced items gone from the places the push looked: of `candidates` (their records
  /// now), those no scanned item carries. A placeholder counts only when it is `gone` (its
  /// file missing and found nowhere else): a scan does not list placeholders.
  func unseen(among candidates: some Sequence<SyncedRecord>, gone: Set<String>)
    -> [String: SyncedRecord]
  {
    var unseen: [String: SyncedRecord] = [:]
    for known in candidates
    where !seen.contains(known.id) && (!known.isPlaceholder || gone.contains(known.id)) {
      unseen[known.id] = known
    }
    return unseen
  }

  /// Splits the changed items: those that only moved (`left` after the folder moves were
  /// committed, the moves of a whole folder taken out), which open no file and go in large
  /// batches, and those edited (new, or whose members differ from their record now).
  static func split(
    changed: [LocalItem], left: [LocalItem], record: (String) -> SyncedRecord?
  ) -> (moved: [LocalItem], edited: [LocalItem]) {
    let moved = left.filter { isOnlyMoved($0, known: record($0.id)) }
    let movedIDs = Set(moved.map(\.id))
    let edited = changed.filter { item in
      !movedIDs.contains(item.id) && record(item.id).map { !$0.matches(item) } ?? true
    }
    return (moved, edited)
  }

  /// Whether `item` differs from `known`, its synced record, only by its path (renamed or
  /// moved). Paths are compared as strings, as ``SyncedItem/matches(_:)`` does: a name that
  /// changed only its Unicode form is sent as an edit, with its path.
  static func isOnlyMoved(_ item: LocalItem, known: SyncedRecord?) -> Bool {
    guard let known, known.path != item.path else { return false }
    var unmoved = item
    unmoved.path = known.path
    return known.matches(unmoved)
  }
}
