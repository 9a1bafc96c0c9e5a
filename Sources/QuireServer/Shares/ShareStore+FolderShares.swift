import Foundation
import QuireSyncProtocol

/// Folder shares: every item under one of the owner's folders, now and later. The participant
/// sees the folder at `Documents/{its name}`; an item moved into it appears, one moved out
/// leaves (as a deletion), and in the `write` role the participant adds, edits, moves (inside
/// the folder) and deletes documents there as the owner does.
extension ShareStore {
  /// Shares `user`'s `folder` ("Documents/Projects", a folder holding at least one live item)
  /// with the account `name` in `role` (again: changes the role).
  func share(
    container identifier: String, folder: String, user: Int64, with name: String,
    role: ShareRole
  ) throws(SyncError) -> ShareInfo {
    let folder = try Self.checkFolder(folder)
    return try write { db throws in
      guard
        let container = try CommitStore.container(
          db, user: user, identifier: identifier, create: false),
        try db.value(
          Int64.self,
          """
          SELECT count(*) FROM items WHERE container = ? AND deleted = 0
            AND substr(path, 1, length(?)) = ?
          """, [container, folder + "/", folder + "/"]) ?? 0 > 0
      else {
        throw SyncError(
          .notFound, "There is no synced document in “\(folder)”: only a synced folder is shared.")
      }
      return try Self.grant(
        db, container: container, item: "", folder: folder, user: user, to: name, role: role)
    }
  }

  /// Stops the share `id` of one of `user`'s items or folders in the container; returns its
  /// participant's name. `notFound` for a share that is not `user`'s own, or was stopped.
  func unshare(container identifier: String, share id: String, user: Int64) throws(SyncError)
    -> String
  {
    try write { db throws in
      guard
        let container = try CommitStore.container(
          db, user: user, identifier: identifier, create: false),
        let grantee = try db.value(
          String.self,
          """
          SELECT g.name FROM shares s JOIN users g ON g.id = s.grantee
          WHERE s.id = ? AND s.container = ? AND s.revoked = 0
          """, [id, container])
      else { throw SyncError(.notFound, "There is no share \(id) of yours in \(identifier).") }
      try db.execute("UPDATE shares SET revoked = 1 WHERE id = ?", [id])
      try db.execute("DELETE FROM shareUploads WHERE share = ?", [id])
      return grantee
    }
  }

  /// `folder` as stored: a folder under `Documents/`, without a trailing slash; `malformed`
  /// otherwise (the whole drive, `..`, an absolute path).
  static func checkFolder(_ folder: String) throws(SyncError) -> String {
    let trimmed = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
    try SyncPath.check(trimmed, what: "folder path")
    guard trimmed.hasPrefix("Documents/") else {
      throw SyncError(
        .malformed, "“\(folder)” is not a folder of the drive: give its path under Documents/.")
    }
    return trimmed
  }

  /// The shared folder's journal after `cursor`: each entry of an item inside it, and, for an
  /// item moved out of it, a deletion at its last path inside (so it leaves the participant's
  /// devices). Paths as the participant sees them.
  static func folderChanges(
    _ db: any SQLSession, _ shared: SharedItem, since cursor: Int64, limit: Int
  )
    throws -> ChangesPage
  {
    let prefix = (shared.folder ?? "") + "/"
    let rows = try db.rows(
      """
      SELECT * FROM (
        SELECT j.sequence, r.id, r.item, r.base, r.kind, r.path, r.deleted, r.conflict,
          r.device, r.committed,
          (SELECT p.path FROM revisions p WHERE p.container = r.container AND p.item = r.item
             AND p.id < r.id AND p.conflict = 0 ORDER BY p.id DESC LIMIT 1) AS previous
        FROM journal j JOIN revisions r ON r.id = j.revision
        WHERE j.container = ? AND j.sequence > ?) t
      WHERE substr(t.path, 1, length(?)) = ? OR substr(t.previous, 1, length(?)) = ?
      ORDER BY t.sequence LIMIT ?
      """, [shared.container, cursor, prefix, prefix, prefix, prefix, limit + 1])
    var unresolved: [String: [Int64]] = [:]
    for row in try db.rows(
      """
      SELECT item, id FROM revisions WHERE container = ? AND conflict = 1 AND resolved = 0
        AND substr(path, 1, length(?)) = ? ORDER BY id
      """, [shared.container, prefix, prefix])
    {
      unresolved[try row["item"], default: []].append(try row["id"])
    }
    let entries = try rows.prefix(limit).map { row in
      let path: String = try row["path"]
      let inside = shared.contains(path)
      let item: String = try row["item"]
      return try ChangeEntry(
        sequence: row["sequence"], item: item, revision: row["id"], base: row["base"],
        kind: ItemKind(rawValue: row["kind"]) ?? .package,
        path: shared.participantPath(inside ? path : (try row["previous"] as String?) ?? path),
        deleted: inside ? row["deleted"] : true, conflict: row["conflict"],
        device: row["device"], committed: row["committed"],
        unresolvedConflicts: inside ? unresolved[item] : nil)
    }
    return ChangesPage(
      entries: entries, cursor: entries.last?.sequence ?? cursor, more: rows.count > limit)
  }

  /// Points a participant's commit at the owner's item: a document share's item keeps the
  /// owner's path and is never deleted by a participant; a folder share's commit is placed at
  /// the owner's path of the participant's one, and may only touch items inside the folder
  /// (new ones included).
  static func place(_ request: inout CommitRequest, in shared: SharedItem, _ db: any SQLSession)
    throws
  {
    let current = try db.value(
      String.self, "SELECT path FROM items WHERE container = ? AND item = ?",
      [shared.container, request.item])
    guard shared.folder != nil else {
      guard request.item == shared.item, let current else {
        throw SyncError(.forbidden, "Share \(shared.share) gives item \(shared.item) only.")
      }
      guard !request.deleted else {
        throw SyncError(
          .forbidden,
          "Only the owner deletes a shared item; remove it from your device by leaving the share."
        )
      }
      request.path = current
      return
    }
    if let current, !shared.contains(current) {
      throw SyncError(
        .forbidden, "Item \(request.item) is not in the folder share \(shared.share) gives.")
    }
    request.path = try shared.ownerPath(request.path)
    try SyncPath.check(request.path, what: "item path")
  }

  /// A shared folder the owner renamed or moved keeps its share: when this batch of commits
  /// emptied a shared folder by moving its items, all to one new folder with the same paths
  /// inside, the share moves there. Returns the participants whose shares moved. One query for
  /// a container without folder shares.
  static func followMovedFolders(
    _ db: any SQLSession, container: Int64, _ requests: [CommitRequest],
    _ answers: [CommitResponse]
  ) throws -> [Int64] {
    let moves = zip(requests, answers).filter { !$0.0.deleted && $0.0.base != nil }
    guard !moves.isEmpty else { return [] }
    let shares = try db.rows(
      "SELECT id, folder, grantee FROM shares WHERE container = ? AND folder IS NOT NULL AND revoked = 0",
      [container])
    var followed: [Int64] = []
    var emptied: [String: String?] = [:]  // folder → its new place, if it moved whole
    for share in shares {
      let folder: String = try share["folder"]
      if emptied[folder] == nil {
        emptied[folder] = .some(try newPlace(of: folder, db, container: container, moves))
      }
      guard let place = emptied[folder] ?? nil else { continue }
      try db.execute(
        "UPDATE shares SET folder = ? WHERE id = ?", [place, try share["id"] as String])
      followed.append(try share["grantee"])
    }
    return followed
  }

  /// Follows `move` with the folder shares of its folder and of the folders inside it; returns
  /// their participants.
  ///
  /// A move into, out of or inside a shared folder that stays where it is needs nothing here:
  /// the move gives each item a revision at its new path, journaled for the shares' feeds, so
  /// each participant sees the items that came in, went out or moved inside, all from one
  /// commit, as if each had been committed alone (``folderChanges(_:_:since:limit:)``).
  ///
  /// Into or out of one, the move must take only what the moving device saw: `forbidden` (its
  /// items then move one by one, each as that device knows it) when `unseen` says an item in
  /// the folder changed after the journal position the device had applied, or the device did
  /// not say. A device that was offline must not share a document another device added to the
  /// folder meanwhile, nor take one a participant added out of the share.
  static func followMovedFolder(
    _ db: any SQLSession, container: Int64, _ move: FolderMove, unseen: () throws -> Bool
  ) throws -> [Int64] {
    var followed: [Int64] = []
    var checked = false
    for share in try db.rows(
      "SELECT id, folder, grantee FROM shares WHERE container = ? AND folder IS NOT NULL AND revoked = 0",
      [container])
    {
      let folder: String = try share["folder"]
      let shared = FolderMove(from: folder, to: folder)
      let leaves = shared.relative(move.from) != nil
      let enters = shared.relative(move.to) != nil || folder == move.to
      if leaves != enters, !checked {
        guard try !unseen() else {
          throw SyncError(
            .forbidden,
            "“\(move.from)” holds documents this device has not synced yet, and its move crosses the shared folder “\(folder)”: its items move one by one."
          )
        }
        checked = true
      }
      guard folder == move.from || move.relative(folder) != nil else { continue }
      let place = folder == move.from ? move.to : move.moved(folder)
      try db.execute(
        "UPDATE shares SET folder = ? WHERE id = ?", [place, try share["id"] as String])
      followed.append(try share["grantee"])
    }
    return followed
  }

  /// Where `folder` went, if it holds no live item now, every item this batch moved out of it
  /// went to one other folder at the same path inside, and everything in that folder was once
  /// in `folder`: a rename, not documents moved into a folder that had its own. Moving a shared
  /// folder's last document into `Private/` must not share `Private/`. Nil otherwise.
  private static func newPlace(
    of folder: String, _ db: any SQLSession, container: Int64,
    _ moves: [(CommitRequest, CommitResponse)]
  ) throws -> String? {
    // First whether it is empty: one query, and almost always the answer is no.
    guard
      try db.value(
        Int64.self,
        """
        SELECT count(*) FROM items WHERE container = ? AND deleted = 0
          AND substr(path, 1, length(?)) = ?
        """, [container, folder + "/", folder + "/"]) == 0
    else { return nil }
    var place: String?
    for (request, answer) in moves {
      guard let base = request.base,
        let old = try db.value(String.self, "SELECT path FROM revisions WHERE id = ?", [base]),
        SharedItem.path(old, startsWith: folder + "/")
      else { continue }
      // Compared as bytes, as the database compares paths (see SharedItem.path(_:startsWith:)).
      let new = Array((answer.path ?? request.path).utf8)
      let inside = old.utf8.dropFirst(folder.utf8.count)  // "/rest"
      guard new.count > inside.count, new.suffix(inside.count).elementsEqual(inside) else {
        return nil
      }
      let candidate = String(decoding: new.dropLast(inside.count), as: UTF8.self)
      guard place == nil || place == candidate, candidate != folder else { return nil }
      place = candidate
    }
    guard let place, SharedItem.path(place, startsWith: "Documents/") else { return nil }
    // Every live item at the destination must have been in the shared folder (moved in this
    // batch or an earlier one: the agent sends an edited document's move apart from the
    // others'); one that never was means documents were moved into a folder with its own.
    let foreign = try db.value(
      Int64.self,
      """
      SELECT count(*) FROM items i WHERE i.container = ? AND i.deleted = 0
        AND substr(i.path, 1, length(?)) = ?
        AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.container = i.container
          AND r.item = i.item AND substr(r.path, 1, length(?)) = ?)
      """, [container, place + "/", place + "/", folder + "/", folder + "/"])
    return foreign == 0 ? place : nil
  }
}
