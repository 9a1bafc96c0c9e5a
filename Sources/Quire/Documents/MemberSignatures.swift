/// What a package document knows of its members, to tell a member event caused by its own save
/// from another program's change — in O(1) per event, with no walk of the package.
///
/// - Members the document's own saves wrote, removed or re-stamped are recorded with their
///   signature right after the save (the save reports them: O(changed)). An event for such a
///   member is the document's own while the member still has that signature.
/// - Any other member's event is another program's change, unless the member's status changed
///   strictly before the document last loaded (an event still queued from before the load,
///   which the load already saw).
/// - Names of a save's own bookkeeping (`.quire-stage-…`, `.quire-trash-…`, the journal) are
///   never changes of the document.
///
/// A write by another program within the same clock tick as the load is counted as a change, so
/// a race costs at most one extra reload, never a missed one.
struct MemberSignatures: Sendable {
  /// Signatures after the document's own saves; `nil` means the save removed the member.
  private var written: [String: FileSignature?] = [:]
  /// The coarse time just before the last load began.
  private var loadedAt: FileSignature.Time = .min

  /// Forgets the members' record at a load that began at `time`. `seen` holds the signatures,
  /// taken before the load, of the members whose change caused it: the events still queued for
  /// that same change are then not changes again (a member changed since has another signature).
  mutating func reset(loadedAt time: FileSignature.Time, seen: [String: FileSignature?] = [:]) {
    written = seen
    loadedAt = time
  }

  /// Notes that the document has seen every member as it was at `time` (it kept a copy of the
  /// other version aside), so events queued from before are not new changes.
  mutating func markSeen(at time: FileSignature.Time) {
    loadedAt = max(loadedAt, time)
  }

  /// Records what the document's save left at the relative `members` of `package`.
  mutating func record(_ members: some Sequence<String>, in package: String) {
    for member in members {
      written[member] = .some(FileSignature.of(package + "/" + member, followLinks: false))
    }
  }

  /// Whether an event for the member at relative path `member` of `package` means another
  /// program changed the document. One `stat` of that member.
  /// The member's signature as it was checked is returned with the answer.
  func isOutsideChange(of member: String, in package: String) -> (
    outside: Bool, signature: FileSignature?
  ) {
    let top = member.split(separator: "/", maxSplits: 1).first.map(String.init) ?? member
    if SaveJournal.isBookkeeping(top) { return (false, nil) }
    // A member's placeholder comes and goes with downloads and evictions: not a change.
    let name = member.split(separator: "/").last.map(String.init) ?? member
    if CloudPlaceholder.memberName(forPlaceholder: name) != nil { return (false, nil) }
    let current = FileSignature.of(package + "/" + member, followLinks: false)
    // A folder inside the package changes its own times whenever a save renames something in
    // it (a new thumbnail in QuickLook/): the events of the files in it decide, not its own.
    if current?.isFolder == true { return (false, current) }
    if let own = written[member] { return (own != current, current) }
    guard let current else { return (true, nil) }
    // A member downloaded from the cloud, untouched since: the bytes the document already had.
    if current.changed >= loadedAt,
      CloudPlaceholder.isUnchangedDownload(package + "/" + member, modified: current.modified)
    {
      return (false, current)
    }
    return (current.changed >= loadedAt, current)
  }
}

extension MemberSignatures {
  /// Takes in the members another record holds (a save's), keeping this one's load time.
  mutating func adopt(_ other: MemberSignatures) {
    written.merge(other.written) { _, new in new }
  }
}
