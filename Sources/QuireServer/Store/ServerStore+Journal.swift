import QuireSyncProtocol

extension ServerStore {
  /// Up to `limit` journal entries of `user`'s container `identifier` after `cursor`, in commit
  /// order. An unknown container has no entries yet.
  func changes(container identifier: String, user: Int64, since cursor: Int64, limit: Int)
    throws(SyncError) -> ChangesPage
  {
    try SyncIdentifier.checkContainer(identifier)
    return try read { db in
      guard
        let container = try Self.container(db, user: user, identifier: identifier, create: false)
      else { return ChangesPage(entries: [], cursor: cursor, more: false) }
      let rows = try db.rows(
        """
        SELECT j.sequence, r.* FROM journal j JOIN revisions r ON r.id = j.revision
        WHERE j.container = ? AND j.sequence > ? ORDER BY j.sequence LIMIT ?
        """, [container, cursor, limit + 1])
      // The container's unresolved conflicts, read once per page: the partial index holds
      // only those, so this costs what there is to report, not the page's length.
      var unresolved: [String: [Int64]] = [:]
      for row in try db.rows(
        """
        SELECT item, id FROM revisions WHERE container = ? AND conflict = 1 AND resolved = 0
        ORDER BY id
        """, [container])
      {
        try unresolved[row["item"], default: []].append(row["id"])
      }
      let entries = try rows.prefix(limit).map { row in
        let item: String = try row["item"]
        return try ChangeEntry(
          sequence: row["sequence"], item: item, revision: row["id"], base: row["base"],
          kind: ItemKind(rawValue: row["kind"]) ?? .package, path: row["path"],
          deleted: row["deleted"], conflict: row["conflict"], device: row["device"],
          committed: row["committed"], unresolvedConflicts: unresolved[item])
      }
      return ChangesPage(
        entries: entries, cursor: entries.last?.sequence ?? cursor, more: rows.count > limit)
    }
  }
}
