import Foundation
import QuireSyncProtocol

extension CommitStore {
  /// `item`'s current revision and its versions, newest first.
  func versions(container identifier: String, item: String, user: Int64) throws(SyncError)
    -> VersionList
  {
    try read { db in
      let (container, current) = try Self.existing(db, identifier, item: item, user: user)
      let rows = try db.rows(
        """
        SELECT r.id, r.device, d.name, r.committed, r.path, r.conflict, r.resolved, r.base,
          r.change, r.deleted, r.lockedBy
        FROM revisions r LEFT JOIN devices d ON d.id = r.device
        WHERE r.container = ? AND r.item = ? AND r.deleted = 0 AND (r.removed = 0 OR r.id = ?)
        ORDER BY r.id DESC
        """, [container, item, current])
      let lock = try Self.lock(db, container: container, item: item)
      return VersionList(
        current: current,
        versions: try rows.map { row in
          try VersionInfo(
            revision: row["id"], device: row["device"], deviceName: row["name"] ?? row["device"],
            committed: row["committed"],
            modified: try Self.modified(db, row: row, container: container, item: item),
            path: row["path"], conflict: row["conflict"], resolved: row["resolved"],
            lockedBy: row["lockedBy"])
        }, lock: lock)
    }
  }

  /// The WebDAV lock on `item`, or on anything inside it (a package's member), that holds now;
  /// an exclusive one first.
  private static func lock(_ db: any SQLSession, container: Int64, item: String) throws
    -> DocumentLock?
  {
    guard
      let row = try db.row(
        "SELECT path, kind FROM items WHERE container = ? AND item = ?", [container, item]),
      let path = try row["path"] as String?, path.startsWithBytes(DAVPath.drive.prefix)
    else { return nil }
    let stored = DAVPath(stored: path)
    let locks = try DAVStore.locks(
      db, container: container, on: [stored],
      trees: try row["kind"] == ItemKind.package.rawValue ? [stored] : [], membership: false)
    guard let lock = locks.sorted(by: { $0.exclusive && !$1.exclusive }).first else {
      return nil
    }
    return DocumentLock(owner: lock.ownerName, expires: lock.expires, exclusive: lock.exclusive)
  }

  /// The newest modification time among a revision's members: read from the members' validity
  /// ranges for a revision on the chain, from its whole manifest for a conflict revision.
  private static func modified(
    _ db: any SQLSession, row: SQLRow, container: Int64, item: String
  ) throws -> Double? {
    if try row["deleted"] as Bool { return nil }
    if try row["conflict"] as Bool {
      return try conflictManifest(db, row: row, container: container, item: item).upserted.map(
        \.modified
      ).max()
    }
    let revision: Int64 = try row["id"]
    return try db.value(
      Double.self,
      """
      SELECT MAX(modified) FROM members WHERE container = ? AND item = ? AND since <= ?
        AND (until IS NULL OR until > ?)
      """, [container, item, revision, revision])
  }

  /// Marks `revisions` (conflict revisions of `item`) resolved, with a journal entry on the
  /// item's current revision so every device hears the item's remaining conflicts.
  func resolve(
    container identifier: String, item: String, revisions: [Int64], resolved: Bool = true,
    user: Int64
  ) throws(SyncError) -> ResolveResponse {
    guard revisions.count <= 1000 else {
      throw SyncError(.tooLarge, "Resolve at most 1000 versions at a time.")
    }
    return try write { db in
      let (container, current) = try Self.existing(db, identifier, item: item, user: user)
      var changed = 0
      for revision in revisions {
        changed += try db.execute(
          """
          UPDATE revisions SET resolved = ?
          WHERE id = ? AND container = ? AND item = ? AND conflict = 1 AND resolved != ?
            AND removed = 0
          """, [resolved, revision, container, item, resolved])
      }
      return try Self.announce(db, changed: changed, container: container, item: item, current)
    }
  }

  /// Removes `revisions` of `item` (never the current one) from its versions; a conflict among
  /// them is resolved by it.
  func removeVersions(container identifier: String, item: String, revisions: [Int64], user: Int64)
    throws(SyncError) -> ResolveResponse
  {
    guard revisions.count <= 1000 else {
      throw SyncError(.tooLarge, "Remove at most 1000 versions at a time.")
    }
    return try write { db in
      let (container, current) = try Self.existing(db, identifier, item: item, user: user)
      var resolvedConflicts = 0
      for revision in revisions where revision != current {
        resolvedConflicts +=
          try db.value(
            Int.self,
            """
            SELECT count(*) FROM revisions WHERE id = ? AND container = ? AND item = ?
              AND conflict = 1 AND resolved = 0
            """, [revision, container, item]) ?? 0
        try db.execute(
          """
          UPDATE revisions SET removed = 1, resolved = 1
          WHERE id = ? AND container = ? AND item = ?
          """, [revision, container, item])
      }
      return try Self.announce(
        db, changed: resolvedConflicts, container: container, item: item, current)
    }
  }

  /// When `changed` conflicts changed state, a journal entry on the item's current revision
  /// tells every device; the answer lists the conflicts still unresolved.
  private static func announce(
    _ db: any SQLSession, changed: Int, container: Int64, item: String, _ current: Int64
  ) throws -> ResolveResponse {
    var sequence: Int64?
    if changed > 0 {
      sequence = try journal(db, container: container, revision: current)
    }
    let unresolved = try db.values(
      Int64.self,
      """
      SELECT id FROM revisions WHERE container = ? AND item = ? AND conflict = 1
        AND resolved = 0 ORDER BY id
      """, [container, item])
    return ResolveResponse(unresolved: unresolved, sequence: sequence)
  }

  /// Makes the contents of `revision` (any version of `item`, a conflict one too) the item's
  /// new current revision, committed by `device` on top of the current one; the item keeps its
  /// current path.
  func restore(
    container identifier: String, item: String, revision: Int64, device: AuthenticatedDevice
  ) throws(SyncError) -> CommitResponse {
    try write { db in
      let (container, current) = try Self.existing(db, identifier, item: item, user: device.user)
      let version = try Self.manifest(
        db, container: container, identifier: identifier, item: item, revision: revision,
        since: nil)
      let now = try Self.manifest(
        db, container: container, identifier: identifier, item: item, revision: current,
        since: nil)
      let before = Dictionary(now.change.upserted.map { ($0.path, $0) }) { first, _ in first }
      let after = Set(version.change.upserted.map(\.path))
      let request = CommitRequest(
        commit: UUID().uuidString, item: item, kind: version.kind, path: now.path, base: current,
        change: ManifestChange(
          upserted: version.change.upserted.filter { before[$0.path] != $0 },
          removed: before.keys.filter { !after.contains($0) }.sorted()))
      return try Self.commit(request, container: container, device: device, blobs: blobs, db)
    }
  }

  /// The container's id and `item`'s current revision; `notFound` if either is unknown.
  private static func existing(
    _ db: any SQLSession, _ identifier: String, item: String, user: Int64
  ) throws -> (Int64, Int64) {
    guard let container = try container(db, user: user, identifier: identifier, create: false),
      let current = try db.value(
        Int64.self, "SELECT current FROM items WHERE container = ? AND item = ?",
        [container, item])
    else {
      throw SyncError(.notFound, "There is no item \(item) in \(identifier).")
    }
    return (container, current)
  }
}
