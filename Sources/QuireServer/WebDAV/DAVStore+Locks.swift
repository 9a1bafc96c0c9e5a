import Foundation
import QuireSyncProtocol

/// Class 2: write locks, kept in `davLocks` so that every replica and a restart honour them.
/// An expired lock is ignored, and removed when a lock is next taken.
extension DAVStore {
  /// The live locks that apply to a write at `paths`: those on each path or on a folder above
  /// it (deep, or a depth-0 lock on its own parent, whose membership the write changes when
  /// `membership`), and, for each of `trees`, those on anything inside it.
  func locks(on paths: [DAVPath], trees: [DAVPath] = [], membership: Bool, drive: DAVDrive)
    throws(DAVError) -> [DAVLock]
  {
    try wrap { () throws(SyncError) in
      try read { db in
        guard let container = try Self.containerID(db, drive: drive) else { return [] }
        return try Self.locks(
          db, container: container, on: paths, trees: trees, membership: membership)
      }
    }
  }

  static func locks(
    _ db: any SQLSession, container: Int64, on paths: [DAVPath], trees: [DAVPath],
    membership: Bool
  ) throws -> [DAVLock] {
    var found: [String: DAVLock] = [:]
    let now = Date().timeIntervalSince1970
    let view = paths.first?.view ?? trees.first?.view ?? .drive
    for path in paths {
      var above: [DAVPath] = [path]
      var walk = path
      while !walk.isDrive {
        walk = walk.parent
        above.append(walk)
      }
      let marks = Array(repeating: "?", count: above.count).joined(separator: ", ")
      for lock in try rows(
        db, "container = ? AND expires > ? AND path IN (\(marks))",
        [container, now] + above.map(\.path), view: view)
      where lock.covers(path) || (membership && lock.path == path.parent) {
        found[lock.token] = lock
      }
    }
    for tree in trees {
      for lock in try rows(
        db, "container = ? AND expires > ? AND \(db.startsWith("path"))",
        [container, now] + db.startsWithArguments(tree.prefix), view: view)
      {
        found[lock.token] = lock
      }
    }
    return Array(found.values)
  }

  /// The locks matching `condition`, their paths read in `view`.
  private static func rows(
    _ db: any SQLSession, _ condition: String, _ arguments: [any SQLArgument], view: DAVView
  )
    throws -> [DAVLock]
  {
    try db.rows(
      "SELECT token, path, deep, exclusive, owner, timeout, expires, account FROM davLocks WHERE \(condition)",
      arguments
    ).map { row in
      DAVLock(
        token: try row["token"], path: DAVPath(stored: try row["path"], view: view),
        deep: try row["deep"],
        exclusive: try row["exclusive"], owner: try row["owner"], timeout: try row["timeout"],
        expires: try row["expires"], holder: try row["account"])
    }
  }

  /// The paths a device's `request` writes, for the lock check: the item's `stored` path and
  /// its new one; for a package, each member it changes (a lock on a member is a lock on that
  /// resource), or, if it moves or deletes the package, everything inside it (`trees`).
  static func written(by request: CommitRequest, stored: String?) -> (
    paths: [String], trees: [String]
  ) {
    let paths = [stored, request.path].compactMap { $0 }
    guard request.kind == .package else { return (paths, []) }
    let package = stored ?? request.path
    if request.deleted || package != request.path { return (paths, [package]) }
    let members = request.change.upserted.map(\.path) + request.change.removed
    return (paths + members.map { package + "/" + $0 }, [])
  }

  /// The live lock that covers any of `paths` or lies inside any of `trees` (paths in the
  /// container; only those in the drive can be locked), an exclusive one first, then by token
  /// (the same one each time); nil if none.
  static func holdingLock(
    _ db: any SQLSession, container: Int64, paths: [String], trees: [String] = []
  ) throws -> DAVLock? {
    try liveLocks(db, container: container, paths: paths, trees: trees, membership: false)
      .min { ($0.exclusive ? 0 : 1, $0.token) < ($1.exclusive ? 0 : 1, $1.token) }
  }

  /// The lock that a WebDAV write of `paths` and `trees` (container paths) may not pass,
  /// holding the tokens `submitted`, or nil (``DAVLock/blocking(_:submitted:)``).
  static func blocking(
    _ db: any SQLSession, container: Int64, paths: [String], trees: [String], membership: Bool,
    holding submitted: Set<String>
  ) throws -> DAVLock? {
    DAVLock.blocking(
      try liveLocks(db, container: container, paths: paths, trees: trees, membership: membership),
      submitted: submitted)
  }

  private static func liveLocks(
    _ db: any SQLSession, container: Int64, paths: [String], trees: [String], membership: Bool
  ) throws -> [DAVLock] {
    let inDrive = { (path: String) in path.startsWithBytes(DAVPath.drive.prefix) }
    let paths = Set(paths.filter(inDrive))
    let trees = Set(trees.filter(inDrive))
    guard !paths.isEmpty || !trees.isEmpty,
      try db.value(
        Bool.self, "SELECT 1 FROM davLocks WHERE container = ? AND expires > ? LIMIT 1",
        [container, Date().timeIntervalSince1970]) == true
    else { return [] }  // the common case: one indexed look-up finds no lock at all
    return try locks(
      db, container: container, on: paths.sorted().map { DAVPath(stored: $0) },
      trees: trees.sorted().map { DAVPath(stored: $0) }, membership: membership)
  }

  /// Takes `lock`, unless a lock that conflicts with it holds: any lock on it, above it
  /// (deep) or, if `lock` is deep, inside it, where either is exclusive. Returns the conflict.
  func take(_ lock: DAVLock, drive: DAVDrive) throws(DAVError) -> DAVLock? {
    try wrap { () throws(SyncError) in
      try write { db in
        let container = try CommitStore.container(
          db, user: drive.owner, identifier: drive.container, create: true)!
        _ = try db.execute(
          "DELETE FROM davLocks WHERE container = ? AND expires <= ?",
          [container, Date().timeIntervalSince1970])
        let existing = try Self.locks(
          db, container: container, on: [lock.path], trees: lock.deep ? [lock.path] : [],
          membership: false)
        if let conflict = existing.first(where: { $0.exclusive || lock.exclusive }) {
          return conflict
        }
        _ = try db.execute(
          """
          INSERT INTO davLocks(
            token, container, path, deep, exclusive, owner, timeout, expires, account)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          [
            lock.token, container, lock.path.path, lock.deep, lock.exclusive, lock.owner,
            lock.timeout, lock.expires, lock.holder,
          ])
        return nil
      }
    }
  }

  /// Those of `tokens` that name live locks of `drive` that `account` holds: the tokens a
  /// write of `account`'s may submit. Another account's token, read from a lock discovery or
  /// guessed, opens nothing.
  func held(_ tokens: Set<String>, by account: Int64, drive: DAVDrive) throws(DAVError)
    -> Set<String>
  {
    guard !tokens.isEmpty else { return [] }
    return try wrap { () throws(SyncError) in
      try read { db in
        guard let container = try Self.containerID(db, drive: drive) else { return [] }
        let marks = Array(repeating: "?", count: tokens.count).joined(separator: ", ")
        let locks = try Self.rows(
          db, "container = ? AND token IN (\(marks))", [container] + tokens.sorted(),
          view: .drive)
        return Set(locks.filter { $0.isHeld(by: account, in: drive) }.map(\.token))
      }
    }
  }

  /// Renews the lock `token` that covers `path` for `timeout` seconds, if `account` holds it;
  /// nil if there is none.
  func refresh(
    _ token: String, at path: DAVPath, timeout: Int, drive: DAVDrive, account: Int64
  ) throws(DAVError) -> DAVLock? {
    guard
      var lock = try locks(on: [path], membership: false, drive: drive)
        .first(where: { $0.token == token && $0.isHeld(by: account, in: drive) })
    else { return nil }
    lock.timeout = timeout
    lock.expires = Date().timeIntervalSince1970 + Double(timeout)
    let renewed = lock
    try wrap { () throws(SyncError) in
      try write { db in
        _ = try db.execute(
          "UPDATE davLocks SET timeout = ?, expires = ? WHERE token = ?",
          [renewed.timeout, renewed.expires, renewed.token])
      }
    }
    return renewed
  }

  /// Removes the lock `token` if it covers `path` and `account` holds it; whether it did.
  func unlock(_ token: String, at path: DAVPath, drive: DAVDrive, account: Int64)
    throws(DAVError) -> Bool
  {
    guard
      try locks(on: [path], membership: false, drive: drive)
        .contains(where: { $0.token == token && $0.isHeld(by: account, in: drive) })
    else { return false }
    try wrap { () throws(SyncError) in
      try write { db in _ = try db.execute("DELETE FROM davLocks WHERE token = ?", [token]) }
    }
    return true
  }
}
