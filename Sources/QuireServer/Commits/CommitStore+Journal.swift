import QuireSyncProtocol

extension CommitStore {
  /// Up to `limit` journal entries of `user`'s container `identifier` after `cursor`, in commit
  /// order: items' commits and folders' moves (``FolderMove``). An unknown container has no
  /// entries yet.
  ///
  /// A device that reads `folderMoves` gets each folder's move as its one entry; one that does
  /// not (an agent from before them, the web drive's live list) gets the revision the move made
  /// for each item instead, as if each had moved alone.
  func changes(
    container identifier: String, user: Int64, since cursor: Int64, limit: Int,
    folderMoves: Bool = true
  ) throws(SyncError) -> ChangesPage {
    try SyncIdentifier.checkContainer(identifier)
    // One statement (a page is read by every stream of the container after each commit, and
    // with PostgreSQL each statement is a round trip): the container by its account and name
    // inside it (one that does not exist yet has no entries), and each entry's item's
    // unresolved conflicts joined on — the partial index holds only those, so this costs what
    // there is to report, not the page's length.
    let rows = try readStatement { db in
      try db.rows(
        """
        SELECT e.*, u.id AS unresolved FROM (
          SELECT j.sequence, r.*, f.fromPath, f.toPath, f.device AS mover,
            f.committed AS moved, f.revisionsBefore
          FROM journal j LEFT JOIN revisions r ON r.id = j.revision
            LEFT JOIN folderMoves f ON f.sequence = j.sequence AND j.revision = 0
          WHERE j.container = (SELECT id FROM containers WHERE account = ? AND identifier = ?)
            AND j.sequence > ? AND \(folderMoves ? "j.sharesOnly = 0" : "j.revision != 0")
          ORDER BY j.sequence LIMIT ?
        ) e LEFT JOIN revisions u ON u.container = e.container AND u.item = e.item
          AND u.conflict = 1 AND u.resolved = 0
        ORDER BY e.sequence, u.id
        """, [user, identifier, cursor, limit + 1])
    }
    var entries: [ChangeEntry] = []
    for row in rows {
      let sequence: Int64 = try row["sequence"]
      let unresolved: Int64? = try row["unresolved"]
      if let from: String = try row["fromPath"] {
        entries.append(
          .moving(
            FolderMove(from: from, to: try row["toPath"]), sequence: sequence,
            revisionsBefore: try row["revisionsBefore"], device: try row["mover"],
            committed: try row["moved"]))
        continue
      }
      if let last = entries.indices.last, entries[last].sequence == sequence {
        if let unresolved { entries[last].unresolvedConflicts?.append(unresolved) }
        continue
      }
      entries.append(
        try ChangeEntry(
          sequence: sequence, item: row["item"], revision: row["id"], base: row["base"],
          kind: ItemKind(rawValue: row["kind"]) ?? .package, path: row["path"],
          deleted: row["deleted"], conflict: row["conflict"], device: row["device"],
          committed: row["committed"], unresolvedConflicts: unresolved.map { [$0] }))
    }
    let more = entries.count > limit
    if more { entries.removeLast(entries.count - limit) }
    return ChangesPage(entries: entries, cursor: entries.last?.sequence ?? cursor, more: more)
  }
}

extension CommitStore {
  /// The last journal position of `user`'s container `identifier` (0 while it has none): where
  /// a stream that wants only what comes next starts.
  func journalHead(container identifier: String, user: Int64) throws(SyncError) -> Int64 {
    try SyncIdentifier.checkContainer(identifier)
    return try readStatement { db in
      try db.value(
        Int64.self,
        """
        SELECT COALESCE(MAX(sequence), 0) FROM journal
        WHERE container = (SELECT id FROM containers WHERE account = ? AND identifier = ?)
        """, [user, identifier]) ?? 0
    }
  }
}
