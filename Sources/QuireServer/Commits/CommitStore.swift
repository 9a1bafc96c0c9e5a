import Foundation
import QuireCore
import QuireSyncProtocol

/// What devices commit: containers, items, their revisions and members, the merge of a stale
/// commit, versions, and the change journal devices follow. Its tables are `containers`,
/// `items`, `revisions`, `members` and `journal`.
public struct CommitStore: StoreAggregate {
  let backend: StoreBackend
  /// The chunks commits name.
  let chunks: ChunkStore
}

extension CommitStore {
  /// The container `identifier` of `user`, made if `create`.
  static func container(_ db: any SQLSession, user: Int64, identifier: String, create: Bool)
    throws -> Int64?
  {
    if let id = try db.value(
      Int64.self, "SELECT id FROM containers WHERE account = ? AND identifier = ?",
      [user, identifier])
    {
      return id
    }
    guard create else { return nil }
    return try db.value(
      Int64.self, "INSERT INTO containers(account, identifier) VALUES (?, ?) RETURNING id",
      [user, identifier])
  }

  /// Commits `request` from `device` to `container`, in one transaction: the revision, the
  /// members it changes, the item's current revision and the journal entry. A commit on a stale
  /// base is merged with the current revision (`mergeStale`). A commit identifier seen before
  /// returns the
  /// first answer.
  func commit(
    _ request: CommitRequest, container identifier: String, device: AuthenticatedDevice,
    maximumMembers: Int
  ) throws(SyncError) -> CommitResponse {
    try commit([request], container: identifier, device: device, maximumMembers: maximumMembers)
      .answers[0]
  }

  /// Commits `requests` in order, in one transaction (one fsync for all: the first sync of
  /// thousands of small documents is not thousands of transactions). All or none: the first
  /// that fails fails them all, and nothing is stored. Also returns the participants of the
  /// folder shares that followed their folder to its new name (``followMovedFolders``).
  ///
  /// A commit to an item a WebDAV client has locked is not applied over the lock: a device's
  /// is kept aside as a conflict version, and a WebDAV write that does not hold the lock is
  /// refused (``CommitLocks``).
  func commit(
    _ requests: [CommitRequest], container identifier: String, device: AuthenticatedDevice,
    maximumMembers: Int, locks: CommitLocks = .keepAside
  ) throws(SyncError) -> (answers: [CommitResponse], sharesMoved: [Int64]) {
    try SyncIdentifier.checkContainer(identifier)
    for request in requests {
      try Self.check(request, maximumMembers: maximumMembers)
    }
    return try writeCommit(scope: "\(device.user)/\(identifier)") { db throws in
      let container = try Self.container(
        db, user: device.user, identifier: identifier, create: true)!
      var budget = ChunkListEdit.maximumCount  // the chunks the batch's edits may make
      let answers = try requests.map { request in
        try Self.commit(
          try Self.resolvingEdits(
            request, container: container, maximumMembers: maximumMembers, budget: &budget, db),
          container: container, device: device, blobs: blobs, locks: locks, db)
      }
      let moved = try ShareStore.followMovedFolders(db, container: container, requests, answers)
      return (answers, moved)
    }
  }

  private static func check(_ request: CommitRequest, maximumMembers: Int) throws(SyncError) {
    try SyncIdentifier.checkItem(request.item)
    // A deletion may name a path stored before today's rules (``deletedPath``); nothing is
    // written there.
    if !request.deleted { try SyncPath.check(request.path, what: "item path") }
    try SyncIdentifier.checkCommit(request.commit)
    // A change with edits is checked once they are applied (``resolvingEdits``).
    if request.change.edits == nil {
      try request.change.validate(kind: request.kind, maximumMembers: maximumMembers)
    }
  }

  /// One commit inside the caller's transaction.
  static func commit(
    _ request: CommitRequest, container: Int64, device: AuthenticatedDevice, blobs: any BlobStore,
    locks: CommitLocks = .keepAside, _ db: any SQLSession
  ) throws -> CommitResponse {
    var request = request
    if let earlier = try Self.earlierAnswer(db, container: container, commit: request.commit) {
      return earlier
    }
    let missing = try ChunkStore.missing(
      db, user: device.user, references: request.change.upserted.flatMap(\.chunks))
    if !missing.isEmpty {
      throw SyncError(
        .missingChunks,
        "The commit names \(missing.count) chunks the server does not hold, such as \(missing.sorted()[0]). Upload them, then commit again."
      )
    }
    let item = try db.row(
      "SELECT kind, current, path FROM items WHERE container = ? AND item = ?",
      [container, request.item])
    if request.deleted {
      try deletedPath(request.path, stored: try item?["path"])
    }
    if let item, try item["kind"] != request.kind.rawValue {
      throw SyncError(
        .invalidManifest,
        "The item \(request.item) is a \(try item["kind"] as String), not a \(request.kind.rawValue)."
      )
    }
    if let base = request.base {
      let known = try db.value(
        Bool.self, "SELECT 1 FROM revisions WHERE id = ? AND container = ? AND item = ?",
        [base, container, request.item])
      guard known == true else {
        throw SyncError(
          .notFound, "The base revision \(base) is not a revision of item \(request.item).")
      }
    }
    let current: Int64? = try item?["current"]
    let stored: String? = try item?["path"]
    let written = DAVStore.written(by: request, stored: stored)
    switch locks {
    case .keepAside:
      if let current,
        let lock = try DAVStore.holdingLock(
          db, container: container, paths: written.paths, trees: written.trees)
      {
        return try keptAside(
          request, container: container, current: current, device: device,
          lockedBy: lock.ownerName, db)
      }
    case .holding(let tokens):
      // A new item, a move and a deletion change their folder's membership too.
      if let lock = try DAVStore.blocking(
        db, container: container, paths: written.paths, trees: written.trees,
        membership: stored != request.path || request.deleted, holding: tokens)
      {
        throw DAVLock.lockedError(lock.path)
      }
    }
    if let current, let base = request.base, current != base,
      let moved = try movedSince(
        db, container: container, item: request.item, base: base, current: current)
    {
      // Only folders' moves came after the device's base (it has not heard of them, or heard
      // of each as one entry with no revisions): not a stale commit; its path follows them.
      request.base = current
      request.path = rebasedPath(
        request.path, base: moved.base, moves: moved.moves, seen: request.seen,
        device: device.id)
    }
    if let current, current != request.base {
      return try mergeStale(
        request, container: container, current: current, device: device, blobs: blobs, db)
    }
    // Two devices that create (or rename to) the same name keep both: the later gets "Name 2".
    if !request.deleted {
      request.path = try freePath(db, container: container, request.path, for: request.item)
    }
    let revision = try Self.inserted(
      db,
      """
      INSERT INTO revisions(container, item, base, kind, path, deleted, conflict, device,
        committed, commitID) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?) RETURNING id
      """,
      [
        container, request.item, request.base, request.kind.rawValue, request.path,
        request.deleted, device.id, Date().timeIntervalSince1970, request.commit,
      ])
    try Self.apply(request, revision: revision, container: container, db)
    let sequence = try Self.journal(db, container: container, revision: revision)
    return CommitResponse(
      revision: revision, status: .current, current: revision, sequence: sequence,
      path: request.path)
  }

  /// Checks the path a deletion names: one that obeys ``SyncPath`` is taken as any; one that
  /// does not is taken only if it is the item's own stored path (kept from before the rules
  /// refused its characters), so that such an item can still be deleted, and no deletion
  /// brings a new refused path in.
  static func deletedPath(_ path: String, stored: String?) throws(SyncError) {
    do throws(SyncError) {
      try SyncPath.check(path, what: "item path")
    } catch {
      guard let stored, stored == path else { throw error }
    }
  }

  /// `path` if no other live item of the container has it, else the first free "Stem N.ext"
  /// beside it (N from 2), as a Finder copy is named.
  static func freePath(_ db: any SQLSession, container: Int64, _ path: String, for item: String)
    throws -> String
  {
    func taken(_ path: String) throws -> Bool {
      try db.value(
        Bool.self,
        // In byte order, as the live-path index is (PostgreSQL uses it for no other).
        """
        SELECT 1 FROM items WHERE container = ? AND path\(db.byteOrder) = ? AND deleted = 0
          AND item != ?
        """,
        [container, path, item]) == true
    }
    let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
    let folder = path[..<slash]
    // The name stays within 255 bytes and the path within SyncPath's limit: a long name must not
    // become one no device can create.
    let limit = min(FileName.maximumLength, SyncPath.maximumLength - folder.utf8.count)
    let name = try FileName.unique(String(path[slash...]), limit: limit) { name throws in
      try taken(folder + name)
    }
    return folder + name
  }

  /// Makes `revision` the item's current one: closes the members it replaces or removes, adds
  /// the ones it writes.
  static func apply(
    _ request: CommitRequest, revision: Int64, container: Int64, _ db: any SQLSession
  ) throws {
    let key: [any SQLArgument] = [revision, container, request.item]
    if request.deleted {
      try db.execute(
        "UPDATE members SET until = ? WHERE container = ? AND item = ? AND until IS NULL", key)
    } else {
      for path in request.change.removed + request.change.upserted.map(\.path) {
        try db.execute(
          "UPDATE members SET until = ? WHERE container = ? AND item = ? AND path = ? AND until IS NULL",
          key + [path])
      }
      for member in request.change.upserted {
        try db.execute(
          """
          INSERT INTO members(container, item, path, since, size, mode, modified, hash, chunks)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """,
          [
            container, request.item, member.path, revision, member.size, member.mode,
            member.modified, member.hash.hex, MemberRow.encode(member.chunks),
          ])
      }
    }
    try db.execute(
      """
      INSERT INTO items(container, item, kind, path, current, deleted) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT(container, item) DO UPDATE SET path = excluded.path,
        current = excluded.current, deleted = excluded.deleted
      """,
      [container, request.item, request.kind.rawValue, request.path, revision, request.deleted])
  }

  /// The id an `INSERT … RETURNING` statement gave its row.
  static func inserted(_ db: any SQLSession, _ sql: String, _ arguments: [any SQLArgument])
    throws -> Int64
  {
    guard let id = try db.value(Int64.self, sql, arguments) else {
      throw SyncError(.internalError, "The server's database returned no id for a new row.")
    }
    return id
  }

  /// Appends `revision` to the container's journal; returns its sequence.
  static func journal(_ db: any SQLSession, container: Int64, revision: Int64) throws -> Int64 {
    try inserted(
      db, "INSERT INTO journal(container, revision) VALUES (?, ?) RETURNING sequence",
      [container, revision])
  }

  private static func earlierAnswer(_ db: any SQLSession, container: Int64, commit: String)
    throws -> CommitResponse?
  {
    guard
      let row = try db.row(
        """
        SELECT r.id, r.conflict, r.merged, r.path, i.current, j.sequence FROM revisions r
        JOIN items i ON i.container = r.container AND i.item = r.item
        JOIN journal j ON j.revision = r.id
        WHERE r.container = ? AND r.commitID = ?
        """, [container, commit])
    else { return nil }
    let conflict: Bool = try row["conflict"]
    let merged: Bool = try row["merged"]
    if conflict && merged {
      // A merge that left the current revision as it was: the commit itself was kept aside.
      let id: Int64 = try row["id"]
      let resolved =
        try db.value(Bool.self, "SELECT resolved FROM revisions WHERE id = ?", [id]) ?? true
      return CommitResponse(
        revision: try row["current"], status: .merged, current: try row["current"],
        sequence: try row["sequence"], conflictRevisions: resolved ? nil : [id])
    }
    // A merge's conflict revisions carry its commit identifier with a suffix.
    let kept =
      merged
      ? try db.values(
        Int64.self,
        "SELECT id FROM revisions WHERE container = ? AND commitID IN (?, ?) ORDER BY id",
        [container, commit + "~mine", commit + "~theirs"]) : []
    return try CommitResponse(
      revision: row["id"], status: conflict ? .conflict : merged ? .merged : .current,
      current: row["current"], sequence: row["sequence"],
      conflictRevisions: kept.isEmpty ? nil : kept,
      path: conflict || merged ? nil : row["path"])
  }
}
