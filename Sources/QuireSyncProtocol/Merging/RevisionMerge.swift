import QuireCore

/// The server's merge of a commit made on a stale base with the item's current revision: a pure
/// value computed from three member lists (the base's, the commit's and the current one's),
/// whose cost is O(B + M + T) lookups plus the text members merged.
///
/// Members merge as ``Quire/MemberMerge`` says. A member both sides changed goes to `mergeText`
/// (the server merges text line by line there and returns nil for anything else); what still
/// conflicts takes the later modification, ties going to the greater device identity, so that
/// every device, whichever commits second, ends with the same result. A commit on an item
/// deleted meanwhile (`theirs` nil) brings the committed copy back whole: modification beats
/// deletion.
public struct RevisionMerge: Sendable {
  /// The merged revision's members, by path.
  public let members: [String: ManifestMember]
  /// Whether some conflicting member took theirs' contents (mine's state is to be kept as a
  /// conflict revision).
  public let mineLost: Bool
  /// Whether some conflicting member took mine's contents (theirs' state is to be kept).
  public let theirsLost: Bool

  /// Merges `mine` (the commit's members, on `base`) with `theirs` (the current revision's; nil
  /// if the current revision deletes the item).
  public init(
    base: [String: ManifestMember], mine: [String: ManifestMember],
    theirs: [String: ManifestMember]?, mineDevice: String, theirsDevice: String,
    mergeText: (
      _ path: String, _ base: ManifestMember?, _ mine: ManifestMember, _ theirs: ManifestMember
    ) throws -> ManifestMember?
  ) rethrows {
    guard let theirs else {
      members = mine
      mineLost = false
      theirsLost = false
      return
    }
    var merged = theirs
    var mineLost = false
    var theirsLost = false
    let plan = MemberMerge(base: base, mine: mine, theirs: theirs) { $0.sameContents(as: $1) }
    for (path, outcome) in plan.outcomes {
      switch outcome {
      case .mine(let member), .theirs(let member):
        merged[path] = member
      case .removed:
        merged[path] = nil
      case .both(let original, let m, let t):
        if let text = try mergeText(path, original, m, t) {
          merged[path] = text
        } else if Self.mineWins(m, t, mineDevice: mineDevice, theirsDevice: theirsDevice) {
          merged[path] = m
          theirsLost = true
        } else {
          merged[path] = t
          mineLost = true
        }
      }
    }
    members = merged
    self.mineLost = mineLost
    self.theirsLost = theirsLost
  }

  /// The later modification wins; at the same time, the greater device identity.
  public static func mineWins(
    _ mine: ManifestMember, _ theirs: ManifestMember, mineDevice: String, theirsDevice: String
  ) -> Bool {
    mine.modified > theirs.modified
      || (mine.modified == theirs.modified && mineDevice > theirsDevice)
  }
}
