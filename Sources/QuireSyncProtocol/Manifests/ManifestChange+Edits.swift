/// A change's chunk lists sent as edits of its base's (``ChunkListEdit``), and rebuilt.
extension ManifestChange {
  /// This change with each upserted member's chunk list sent as an edit of `base`'s list at
  /// its path, where that is smaller.
  public func editing(base: [String: [ChunkReference]]) -> ManifestChange {
    var change = self
    var edits: [ChunkListEdit] = []
    for index in change.upserted.indices {
      let member = change.upserted[index]
      guard let old = base[member.path],
        let edit = ChunkListEdit.between(base: old, new: member.chunks, path: member.path)
      else { continue }
      edits.append(edit)
      change.upserted[index].chunks = []
    }
    change.edits = edits.isEmpty ? nil : edits
    return change
  }

  /// This change with every edit applied to `base`'s list at its path (nil if there is none),
  /// and no edits left. Throws `invalidManifest` for an edit of a member not upserted, two
  /// edits of one member, one of a member listed with chunks, one with no base, one that does
  /// not apply to the base (``ChunkListEdit/applied(to:limit:)``), or edits that make more
  /// than ``ChunkListEdit/maximumCount`` chunks in all.
  public func resolvingEdits(base: (String) throws(SyncError) -> [ChunkReference]?)
    throws(SyncError) -> ManifestChange
  {
    var budget = ChunkListEdit.maximumCount
    return try resolvingEdits(budget: &budget, base: base)
  }

  /// ``resolvingEdits(base:)``, the chunks the edits make taken from `budget`, which the
  /// changes of one request share.
  public func resolvingEdits(
    budget: inout Int, base: (String) throws(SyncError) -> [ChunkReference]?
  ) throws(SyncError) -> ManifestChange {
    guard let edits else { return self }
    var change = self
    change.edits = nil
    var index: [String: Int] = [:]
    for (position, member) in upserted.enumerated() { index[member.path] = position }
    var done = Set<String>()
    for edit in edits {
      guard let position = index[edit.path], done.insert(edit.path).inserted,
        change.upserted[position].chunks.isEmpty
      else {
        throw SyncError(
          .invalidManifest,
          "The edit of member “\(edit.path)”'s chunks names no member written without its chunks, or names one twice."
        )
      }
      guard let old = try base(edit.path) else {
        throw SyncError(
          .invalidManifest,
          "The edit of member “\(edit.path)”'s chunks has no base member at that path. Send the whole list."
        )
      }
      let chunks = try edit.applied(to: old, limit: budget)
      budget -= chunks.count
      change.upserted[position].chunks = chunks
    }
    return change
  }
}
