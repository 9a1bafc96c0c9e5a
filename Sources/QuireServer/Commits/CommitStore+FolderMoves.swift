import Foundation
import QuireSyncProtocol

/// A folder's move as one commit: one journal entry, whatever the folder holds.
extension CommitStore {
  /// Moves every live item under `request`'s folder to the same place under its new path, in
  /// one transaction with one journal entry (``ChangeEntry/folderMove``). Each item gets a
  /// revision at its new path (versions, manifests and WebDAV read paths from revisions); the
  /// owner's devices do not read those from the journal, but the one entry, which they apply
  /// as one rename. Folder shares of the folder, or of a folder inside it, follow it; their
  /// participants are returned.
  ///
  /// Refused, so that the device moves the items one by one as before:
  /// - `notFound` when the folder holds no live item;
  /// - `alreadyExists` when an item is at the new path or inside it (the folders would merge);
  /// - `locked` when a WebDAV client holds a lock on an item in either folder.
  ///
  /// A move into, out of or inside a shared folder is one commit too; its participants read the
  /// items' revisions at their new paths (see ``ShareStore``'s folder feeds).
  ///
  /// The same commit identifier sent again returns the first answer.
  func moveFolder(
    _ request: FolderMoveRequest, container identifier: String, device: AuthenticatedDevice
  ) throws(SyncError) -> (answer: FolderMoveResponse, sharesMoved: [Int64]) {
    try SyncIdentifier.checkContainer(identifier)
    try SyncIdentifier.checkCommit(request.commit)
    let move = try Self.check(request.move)
    return try writeCommit(scope: "\(device.user)/\(identifier)") { db throws in
      let container = try Self.container(
        db, user: device.user, identifier: identifier, create: true)!
      if let earlier = try db.row(
        "SELECT sequence, items FROM folderMoves WHERE container = ? AND commitID = ?",
        [container, request.commit])
      {
        let answer = FolderMoveResponse(
          sequence: try earlier["sequence"], items: Int(try earlier["items"] as Int64))
        return (answer, [])
      }
      let from = move.from + "/"
      let to = move.to + "/"
      let count =
        try db.value(
          Int64.self,
          "SELECT count(*) FROM items WHERE container = ? AND deleted = 0 AND \(db.startsWith("path"))",
          [container] + db.startsWithArguments(from)) ?? 0
      guard count > 0 else {
        throw SyncError(
          .notFound, "There is no synced document in “\(move.from)”: move its items one by one.")
      }
      if try db.value(
        Bool.self,
        """
        SELECT 1 FROM items WHERE container = ? AND deleted = 0
          AND (path = ? OR \(db.startsWith("path"))) LIMIT 1
        """, [container, move.to] + db.startsWithArguments(to)) == true
      {
        throw SyncError(
          .alreadyExists,
          "“\(move.to)” already holds documents: the folders are merged item by item.")
      }
      if let lock = try DAVStore.holdingLock(
        db, container: container, paths: [], trees: [move.from, move.to])
      {
        throw DAVLock.lockedError(lock.path)
      }
      let followed = try ShareStore.followMovedFolder(db, container: container, move) {
        try Self.changed(db, container: container, under: from, after: request.seen)
      }
      let committed = Date().timeIntervalSince1970
      let before = try db.value(Int64.self, "SELECT COALESCE(MAX(id), 0) FROM revisions") ?? 0
      // A statement for the whole folder, not one per item: each item's revision at its new
      // path (its members stay: they are valid from an earlier revision on), its commit
      // identifier the move's and the item's, marked -1 until the move has its sequence.
      try db.execute(
        """
        INSERT INTO revisions(container, item, base, kind, path, deleted, conflict, device,
          committed, commitID, folderMove)
        SELECT container, item, current, kind,
          CAST(? AS TEXT) || substr(path, length(CAST(? AS TEXT)) + 1), 0, 0, ?, ?,
          CAST(? AS TEXT) || item, -1
        FROM items WHERE container = ? AND deleted = 0 AND \(db.startsWith("path"))
        """,
        [to, from, device.id, committed, request.commit + "/", container]
          + db.startsWithArguments(from))
      // Those revisions are journaled for the feeds of folder shares (a participant whose
      // shared folder was renamed reads its journal again, and finds each item under the new
      // name) and of devices that do not read folder moves, ahead of the move's own entry,
      // which the other devices read instead: their cursors end past all of them.
      try db.execute(
        """
        INSERT INTO journal(container, revision, sharesOnly)
        SELECT container, id, 1 FROM revisions
        WHERE id > ? AND container = ? AND folderMove = -1 ORDER BY id
        """, [before, container])
      let sequence = try Self.inserted(
        db, "INSERT INTO journal(container, revision) VALUES (?, 0) RETURNING sequence",
        [container])
      try db.execute(
        "UPDATE revisions SET folderMove = ? WHERE id > ? AND container = ? AND folderMove = -1",
        [sequence, before, container])
      try db.execute(
        """
        INSERT INTO folderMoves(sequence, container, fromPath, toPath, device, committed,
          commitID, items, revisionsBefore) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          sequence, container, move.from, move.to, device.id, committed, request.commit, count,
          before,
        ])
      try db.execute(
        """
        UPDATE items SET
          path = CAST(? AS TEXT) || substr(path, length(CAST(? AS TEXT)) + 1),
          current = (SELECT r.id FROM revisions r WHERE r.container = items.container
            AND r.commitID = CAST(? AS TEXT) || items.item)
        WHERE container = ? AND deleted = 0 AND \(db.startsWith("path"))
        """,
        [to, from, request.commit + "/", container] + db.startsWithArguments(from))
      try DAVStore.copyRows(
        db, container: container, from: DAVPath(stored: move.from),
        to: DAVPath(stored: move.to), remove: true, deep: true)
      return (FolderMoveResponse(sequence: sequence, items: Int(count)), followed)
    }
  }

  /// Whether a live item under `folder` (a path ending in "/") changed after journal position
  /// `seen`, or `seen` is nil. Revision identities grow in commit order, so the revision of
  /// the last entry the device had applied bounds what it saw: one check of the folder's items,
  /// as the move itself reads them.
  static func changed(
    _ db: any SQLSession, container: Int64, under folder: String, after seen: Int64?
  ) throws -> Bool {
    guard let seen else { return true }
    let last =
      try db.value(
        Int64.self,
        """
        SELECT revision FROM journal WHERE container = ? AND sequence <= ? AND revision != 0
        ORDER BY sequence DESC LIMIT 1
        """, [container, seen]) ?? 0
    return try db.value(
      Bool.self,
      """
      SELECT 1 FROM items WHERE container = ? AND deleted = 0 AND current > ?
        AND \(db.startsWith("path")) LIMIT 1
      """, [container, last] + db.startsWithArguments(folder)) == true
  }

  /// `move` with both paths checked: folders of the drive, different, neither inside the other.
  private static func check(_ move: FolderMove) throws(SyncError) -> FolderMove {
    for path in [move.from, move.to] {
      try SyncPath.check(path, what: "folder path")
      guard path.hasPrefix("Documents/") else {
        throw SyncError(
          .malformed, "“\(path)” is not a folder of the drive: give its path under Documents/.")
      }
    }
    guard move.from != move.to, move.relative(move.to) == nil,
      FolderMove(from: move.to, to: move.from).relative(move.from) == nil
    else {
      throw SyncError(
        .malformed, "A folder cannot move to “\(move.to)”, itself or a folder inside it or above.")
    }
    return move
  }

  /// The folder moves (oldest first, each with its journal sequence and the device that made
  /// it) that made every revision of `item` after `base` up to `current`, and `base`'s path: a
  /// commit on `base` then is not stale, only its path must follow the moves
  /// (``rebasedPath(_:base:moves:seen:device:)``). Nil if any of those revisions is another
  /// commit.
  static func movedSince(
    _ db: any SQLSession, container: Int64, item: String, base: Int64, current: Int64
  ) throws -> (base: String, moves: [FolderMoveMade])? {
    var revision = current
    var moves: [FolderMoveMade] = []
    // A chain of moves only: a bound keeps a long one from costing a walk of the history.
    for _ in 0..<64 {
      guard
        let row = try db.row(
          """
          SELECT r.base, r.folderMove, f.fromPath, f.toPath, f.device FROM revisions r
          JOIN folderMoves f ON f.sequence = r.folderMove
          WHERE r.id = ? AND r.container = ? AND r.item = ?
          """, [revision, container, item]),
        let parent: Int64 = try row["base"]
      else { return nil }
      moves.insert(
        FolderMoveMade(
          sequence: try row["folderMove"],
          move: FolderMove(from: try row["fromPath"], to: try row["toPath"]),
          device: try row["device"]),
        at: 0)
      revision = parent
      if revision == base {
        guard
          let old = try db.value(String.self, "SELECT path FROM revisions WHERE id = ?", [base])
        else { return nil }
        return (old, moves)
      }
    }
    return nil
  }

  /// The path of a commit by `device` at `requested`, made on a base at `base` that the folder
  /// `moves` came after. The device's own moves stand: it made them, so it placed the item
  /// knowing them, even before its journal reached them (a document put back under the old
  /// name stays there). A device that says what it has `seen` has its path taken through each
  /// other move it had not heard of: it placed the item knowing the others. One that does not
  /// say is taken as having heard of none if it left the item where the base had it, or
  /// renamed it in that folder; if it moved it elsewhere, its path stands.
  static func rebasedPath(
    _ requested: String, base: String, moves: [FolderMoveMade], seen: Int64?, device: String
  ) -> String {
    let moves = moves.filter { $0.device != device }
    if let seen {
      return moves.filter { $0.sequence > seen }.reduce(requested) { $1.move.moved($0) }
    }
    func folder(_ path: String) -> Substring {
      path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
    }
    guard requested == base || folder(requested) == folder(base) else { return requested }
    return moves.reduce(requested) { $1.move.moved($0) }
  }
}
