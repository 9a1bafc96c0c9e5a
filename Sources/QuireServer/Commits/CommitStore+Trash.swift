import QuireSyncProtocol

extension CommitStore {
  /// The most recently deleted documents of `user`'s container `identifier` under `scope` (a
  /// path prefix such as "Documents/"), newest first, at most `limit`: each with the revision a
  /// restore brings back. Documents whose every version before the deletion was removed are not
  /// listed: nothing of them is left to restore.
  func trash(container identifier: String, user: Int64, scope: String, limit: Int)
    throws(SyncError) -> [TrashedItem]
  {
    try SyncIdentifier.checkContainer(identifier)
    return try readStatement { db in
      // The version a restore brings back: the last one of the main line (a conflict's copy
      // is a side version) that was not removed.
      try db.rows(
        """
        SELECT * FROM (
          SELECT i.item, i.path, i.kind, r.committed,
            (SELECT MAX(l.id) FROM revisions l WHERE l.container = i.container
              AND l.item = i.item AND l.deleted = 0 AND l.removed = 0 AND l.conflict = 0)
              AS restorable
          FROM items i JOIN revisions r ON r.id = i.current
          WHERE i.container = (SELECT id FROM containers WHERE account = ? AND identifier = ?)
            AND i.deleted = 1 AND \(db.startsWith("i.path"))
        ) t WHERE restorable IS NOT NULL ORDER BY committed DESC LIMIT ?
        """, [user, identifier] + db.startsWithArguments(scope) + [limit]
      ).map { row in
        TrashedItem(
          item: try row["item"], path: (try row["path"] as String).droppingBytes(scope.utf8.count),
          kind: ItemKind(rawValue: try row["kind"]) ?? .file, deleted: try row["committed"],
          revision: try row["restorable"])
      }
    }
  }
}
