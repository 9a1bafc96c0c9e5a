/// The three-way merge of a package's members: what each path becomes when two copies of the
/// package changed the same base.
///
/// Per member: changed on one side only → that side; changed identically → fine; added or
/// removed on different sides → both apply; removed on one side and changed on the other → the
/// change wins. What both sides changed differently is left to the caller as
/// ``Outcome/both(base:mine:theirs:)``: a text member can go through ``TextMerge``, anything
/// else is a conflict. The server merges concurrent commits with it, and `quire merge` merges
/// two package folders with it.
///
/// The cost is O(B + M + T) dictionary lookups for the three member lists, contents aside.
public struct MemberMerge<Member: Sendable>: Sendable {
  /// What one path becomes.
  public enum Outcome: Sendable {
    /// Mine's member (changed on my side only, or the same on both).
    case mine(Member)
    /// Theirs' member (changed on their side only).
    case theirs(Member)
    /// Removed (on one side, unchanged on the other; or on both).
    case removed
    /// Changed differently on both sides (or added on both with different contents): the
    /// caller merges the contents or chooses a winner.
    case both(base: Member?, mine: Member, theirs: Member)
  }

  /// The outcome of every path that either side changed, sorted by path. Paths neither side
  /// touched keep the base's member and are not listed.
  public let outcomes: [(path: String, outcome: Outcome)]

  /// Merges `mine` and `theirs`, two changed copies of `base` (each a member list by path);
  /// `same` says whether two members have the same contents.
  public init(
    base: [String: Member], mine: [String: Member], theirs: [String: Member],
    same: (Member, Member) -> Bool
  ) {
    var paths = Set(mine.keys).union(theirs.keys)
    paths.formUnion(base.keys)
    var outcomes: [(path: String, outcome: Outcome)] = []
    for path in paths.sorted() {
      let original = base[path]
      let m = mine[path]
      let t = theirs[path]
      let mineChanged = !Self.equal(original, m, same)
      let theirsChanged = !Self.equal(original, t, same)
      guard mineChanged || theirsChanged else { continue }
      let outcome: Outcome
      switch (m, t) {
      case (nil, nil):
        outcome = .removed
      case (let m?, nil):
        // Theirs removed it: a change on mine wins over the removal.
        outcome = mineChanged ? .mine(m) : .removed
      case (nil, let t?):
        outcome = theirsChanged ? .theirs(t) : .removed
      case (let m?, let t?):
        if !theirsChanged || same(m, t) {
          outcome = .mine(m)
        } else if !mineChanged {
          outcome = .theirs(t)
        } else {
          outcome = .both(base: original, mine: m, theirs: t)
        }
      }
      outcomes.append((path, outcome))
    }
    self.outcomes = outcomes
  }

  private static func equal(_ a: Member?, _ b: Member?, _ same: (Member, Member) -> Bool) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case (let a?, let b?): return same(a, b)
    default: return false
    }
  }
}
