import Foundation
import QuireSyncProtocol

/// A participant's requests through a share (`/v1/shares/{id}/…`): the container's reads limited
/// to the shared item, shown at `Documents/{name}`; writes only in the `write` role, only to that
/// item, never a rename or a deletion (those are the owner's).
extension ShareStore {
  /// The item `share` gives `user`; `notFound` (the same answer as for a share that never
  /// existed) if it is not `user`'s, was revoked, or its item was deleted.
  func sharedItem(_ share: String, user: Int64) throws(SyncError) -> SharedItem {
    try read { db throws in try Self.sharedItem(db, share, user: user) }
  }

  static func sharedItem(_ db: any SQLSession, _ share: String, user: Int64) throws -> SharedItem {
    guard
      let row = try db.row(
        """
        SELECT s.container, s.item, s.folder, s.role, c.account, c.identifier
        FROM shares s JOIN containers c ON c.id = s.container
          LEFT JOIN items i ON i.container = s.container AND i.item = s.item
        WHERE s.id = ? AND s.grantee = ? AND s.revoked = 0
          AND (s.folder IS NOT NULL OR i.deleted = 0)
        """, [share, user])
    else {
      throw SyncError(
        .notFound, "There is no share \(share) for this account: it was revoked, or never made.")
    }
    return try SharedItem(
      share: share, owner: row["account"], container: row["container"],
      identifier: row["identifier"], item: row["item"], folder: row["folder"],
      role: ShareRole(rawValue: row["role"]) ?? .read)
  }

  /// The journal entries of the shared item after `cursor` (the owner's journal positions).
  func sharedChanges(_ share: String, user: Int64, since cursor: Int64, limit: Int)
    throws(SyncError) -> ChangesPage
  {
    try read { db throws in
      let shared = try Self.sharedItem(db, share, user: user)
      if shared.folder != nil {
        return try Self.folderChanges(db, shared, since: cursor, limit: limit)
      }
      let rows = try db.rows(
        """
        SELECT j.sequence, r.* FROM journal j JOIN revisions r ON r.id = j.revision
        WHERE j.container = ? AND r.item = ? AND j.sequence > ? ORDER BY j.sequence LIMIT ?
        """, [shared.container, shared.item, cursor, limit + 1])
      let unresolved = try db.values(
        Int64.self,
        """
        SELECT id FROM revisions WHERE container = ? AND item = ? AND conflict = 1
          AND resolved = 0 ORDER BY id
        """, [shared.container, shared.item])
      let entries = try rows.prefix(limit).map { row in
        try ChangeEntry(
          sequence: row["sequence"], item: shared.item, revision: row["id"], base: row["base"],
          kind: ItemKind(rawValue: row["kind"]) ?? .package,
          path: shared.participantPath(row["path"]), deleted: row["deleted"],
          conflict: row["conflict"], device: row["device"], committed: row["committed"],
          unresolvedConflicts: unresolved.isEmpty ? nil : unresolved)
      }
      return ChangesPage(
        entries: entries, cursor: entries.last?.sequence ?? cursor, more: rows.count > limit)
    }
  }

  /// Manifests of the shared item's `revisions` (each with its `since`), paths as the
  /// participant sees them; `notFound` for another item.
  func sharedManifests(
    _ share: String, user: Int64, revisions: [(item: String, revision: Int64, since: Int64?)]
  ) throws(SyncError) -> [RevisionManifest] {
    try read { db throws in
      let shared = try Self.sharedItem(db, share, user: user)
      return try revisions.map { wanted in
        guard wanted.item == shared.item || shared.folder != nil else {
          throw SyncError(.notFound, "There is no item \(wanted.item) in share \(share).")
        }
        var manifest = try CommitStore.manifest(
          db, container: shared.container, identifier: "share \(share)", item: wanted.item,
          revision: wanted.revision, since: wanted.since)
        guard shared.folder == nil || shared.contains(manifest.path) else {
          throw SyncError(.notFound, "There is no item \(wanted.item) in share \(share).")
        }
        manifest.path = shared.participantPath(manifest.path)
        return manifest
      }
    }
  }

  /// The chunks `hashes` of the shared item, located to be read as they are sent; `notFound` for any other chunk of the
  /// owner's, so a participant cannot probe the owner's files by hash.
  func sharedChunks(_ share: String, user: Int64, hashes: [ContentHash]) throws(SyncError)
    -> ChunkDownload
  {
    let owner = try read { db throws -> Int64 in
      let shared = try Self.sharedItem(db, share, user: user)
      let allowed = try allowed(hashes, of: shared, in: db, confirm: true)
      if let other = hashes.first(where: { !allowed.contains($0) }) {
        throw SyncError(.notFound, "Chunk \(other) is not part of the item shared by \(share).")
      }
      return shared.owner
    }
    return try chunks.fetchChunks(user: owner, hashes: hashes)
  }

  /// Those of `hashes` a participant must upload through `share` before committing them:
  /// everything but the item's own chunks and what it uploaded through the share.
  func sharedMissingChunks(_ share: String, user: Int64, hashes: [ContentHash])
    throws(SyncError) -> [ContentHash]
  {
    try read { db throws in
      let shared = try Self.writable(db, share, user: user)
      let allowed = try allowed(hashes, of: shared, in: db, confirm: false)
      return hashes.filter { !allowed.contains($0) }.sorted()
    }
  }

  /// Stores a participant's chunks in the owner's account, noted as uploaded through `share`.
  func storeSharedChunks(_ share: String, user: Int64, body: [UInt8], maximumChunk: Int)
    throws(SyncError) -> Int
  {
    let shared = try read { db throws in try Self.writable(db, share, user: user) }
    return try chunks.storeChunks(
      user: shared.owner, body: body, maximumChunk: maximumChunk, share: share)
  }

  /// Commits a participant's edits of the shared item, in one transaction, as the container's
  /// own commits are (a stale one merged); the item keeps the owner's path. Returns the answers
  /// (paths as the participant sees them) and the item, whose owner's devices are to be woken.
  func sharedCommit(
    _ requests: [CommitRequest], share: String, device: AuthenticatedDevice, maximumMembers: Int
  ) throws(SyncError) -> (answers: [CommitResponse], shared: SharedItem) {
    for request in requests {
      try SyncIdentifier.checkItem(request.item)
      try request.change.validate(kind: request.kind, maximumMembers: maximumMembers)
      try SyncIdentifier.checkCommit(request.commit)
    }
    return try write { db throws in
      let shared = try Self.writable(db, share, user: device.user)
      let named = requests.flatMap { $0.change.upserted.flatMap { $0.chunks.map(\.hash) } }
      let allowed = try allowed(named, of: shared, in: db, confirm: true)
      let answers = try requests.map { request in
        var request = request
        try Self.place(&request, in: shared, db)
        let named = request.change.upserted.flatMap { $0.chunks.map(\.hash) }
        if let missing = named.first(where: { !allowed.contains($0) }) {
          throw SyncError(
            .missingChunks,
            "The commit names chunk \(missing), not uploaded through share \(share). Upload it, then commit again."
          )
        }
        var answer = try CommitStore.commit(
          request, container: shared.container,
          device: AuthenticatedDevice(id: device.id, user: shared.owner), blobs: blobs, db)
        answer.path = answer.path.map(shared.participantPath)
        return answer
      }
      return (answers, shared)
    }
  }

  /// The share, if its participant may write; `forbidden` for a read-only one.
  static func writable(_ db: any SQLSession, _ share: String, user: Int64) throws
    -> SharedItem
  {
    let shared = try sharedItem(db, share, user: user)
    guard shared.role == .write else {
      throw SyncError(
        .forbidden, "This item is shared with you read-only; ask its owner for write access.")
    }
    return shared
  }

  /// The chunks of every revision of the shared item (of every item ever in the shared folder),
  /// and those uploaded through the share: a read of the whole item or folder (member rows
  /// read are counted in `counting`).
  static func allowedChunks(
    _ db: any SQLSession, _ shared: SharedItem, counting: ShareChunkCache? = nil
  ) throws -> Set<ContentHash> {
    var allowed = Set<ContentHash>()
    let prefix = (shared.folder ?? "") + "/"
    try db.forEach(
      shared.folder == nil
        ? "SELECT chunks FROM members WHERE container = ? AND item = ?"
        : """
        SELECT chunks FROM members WHERE container = ? AND item IN (
          SELECT item FROM revisions WHERE container = ? AND substr(path, 1, length(?)) = ?)
        """,
      shared.folder == nil
        ? [shared.container, shared.item] : [shared.container, shared.container, prefix, prefix]
    ) { row in
      counting?.noteMembersRead(1)
      for chunk in MemberRow.decode([UInt8]((try row["chunks"] as Data?) ?? Data())) {
        allowed.insert(chunk.hash)
      }
    }
    for hex in try db.values(
      String.self, "SELECT hash FROM shareUploads WHERE share = ?", [shared.share])
    {
      if let hash = ContentHash(hex: hex) { allowed.insert(hash) }
    }
    return allowed
  }
}
