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
  /// - `forbidden` when the move enters, leaves or stays inside a shared folder (each
  ///   participant must see its items come and go);
  /// - `locked` when a WebDAV client holds a lock on an item in either folder.
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
      let followed = try ShareStore.followMovedFolder(db, container: container, move)
      let committed = Date().timeIntervalSince1970
      let before = try db.value(Int64.self, "SELECT COALESCE(MAX(id), 0) FROM revisions") ?? 0
      // A statement for the whole folder, not one per item: each item's revision at its new
      // path (its members stay: they are valid from an earlier revision on), its commit
      // identifier the move's and the item's.
      try db.execute(
        """
        INSERT INTO revisions(container, item, base, kind, path, deleted, conflict, device,
          committed, commitID, folderMove)
        SELECT container, item, current, kind,
          CAST(? AS TEXT) || substr(path, length(CAST(? AS TEXT)) + 1), 0, 0, ?, ?,
          CAST(? AS TEXT) || item, 1
        FROM items WHERE container = ? AND deleted = 0 AND \(db.startsWith("path"))
        """,
        [to, from, device.id, committed, request.commit + "/", container]
          + db.startsWithArguments(from))
      // Those revisions are journaled for the feeds of folder shares (a participant whose
      // shared folder was renamed reads its journal again, and finds each item under the new
      // name), ahead of the move's own entry, which the owner's devices read instead of them.
      try db.execute(
        """
        INSERT INTO journal(container, revision)
        SELECT container, id FROM revisions
        WHERE id > ? AND container = ? AND folderMove IS NOT NULL ORDER BY id
        """, [before, container])
      let sequence = try Self.inserted(
        db, "INSERT INTO journal(container, revision) VALUES (?, 0) RETURNING sequence",
        [container])
      try db.execute(
        """
        INSERT INTO folderMoves(sequence, container, fromPath, toPath, device, committed,
          commitID, items) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          sequence, container, move.from, move.to, device.id, committed, request.commit, count,
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

  /// The paths of `item`'s revisions between `base` and `current` if every one of them after
  /// `base` is a folder move's: a commit on `base` then is not stale, only its path must be
  /// merged (``mergedPath(_:base:current:)``). Nil if any is another device's commit.
  static func movedSince(
    _ db: any SQLSession, container: Int64, item: String, base: Int64, current: Int64
  ) throws -> (base: String, current: String)? {
    var revision = current
    var path: String?
    // A chain of moves only: a bound keeps a long one from costing a walk of the history.
    for _ in 0..<64 {
      guard
        let row = try db.row(
          "SELECT base, path, folderMove FROM revisions WHERE id = ? AND container = ? AND item = ?",
          [revision, container, item]),
        try row["folderMove"] as Int64? != nil, let parent: Int64 = try row["base"]
      else { return nil }
      if path == nil { path = try row["path"] }
      revision = parent
      if revision == base {
        guard
          let old = try db.value(String.self, "SELECT path FROM revisions WHERE id = ?", [base])
        else { return nil }
        return (old, path ?? old)
      }
    }
    return nil
  }

  /// The path of a commit made on a base the item's folder moved since: the folder's new path
  /// if the device left the item where the base had it; its new name in the moved folder if
  /// the device only renamed it; where the device moved it otherwise.
  static func mergedPath(_ requested: String, base: String, current: String) -> String {
    if requested == base { return current }
    func folder(_ path: String) -> Substring {
      path[..<(path.lastIndex(of: "/") ?? path.startIndex)]
    }
    guard folder(requested) == folder(base) else { return requested }
    let name = requested.lastIndex(of: "/").map { requested[requested.index(after: $0)...] }
    return String(folder(current)) + "/" + (name ?? requested[...])
  }
}
