import Foundation
import QuireSyncProtocol

extension CommitStore {
  /// Revision `revision` of `item`: every member, or with `since` (an earlier revision on the
  /// item's chain) only the members written and removed after it — O(changed), read from the
  /// members' validity ranges.
  /// With `edits`, a member changed since `since` whose list is long and mostly the one it had
  /// then is sent as an edit of that list (``ChunkListEdit``).
  func manifest(
    container identifier: String, item: String, revision: Int64, since: Int64?, user: Int64,
    edits: Bool = false
  ) throws(SyncError) -> RevisionManifest {
    try read { db throws in
      let container = try Self.container(db, user: user, identifier: identifier, create: false)
      return try Self.manifest(
        db, container: container, identifier: identifier, item: item, revision: revision,
        since: since, edits: edits)
    }
  }

  /// The whole manifests of `revisions`, read in one transaction, in their order; `notFound` if
  /// one of them is not a revision of its item in the container.
  func manifests(
    container identifier: String, revisions: [ManifestBatch.Wanted], user: Int64
  ) throws(SyncError) -> [RevisionManifest] {
    try read { db throws in
      let container = try Self.container(db, user: user, identifier: identifier, create: false)
      return try revisions.map { wanted in
        try Self.manifest(
          db, container: container, identifier: identifier, item: wanted.item,
          revision: wanted.revision, since: nil)
      }
    }
  }

  static func manifest(
    _ db: any SQLSession, container: Int64?, identifier: String, item: String, revision: Int64,
    since: Int64?, edits: Bool = false
  ) throws -> RevisionManifest {
    guard let container,
      let row = try db.row(
        "SELECT * FROM revisions WHERE id = ? AND container = ? AND item = ?",
        [revision, container, item])
    else {
      throw SyncError(
        .notFound, "There is no revision \(revision) of item \(item) in \(identifier).")
    }
    let kind = ItemKind(rawValue: try row["kind"]) ?? .package
    let conflict: Bool = try row["conflict"]
    var since = since
    if let earlier = since {
      let onChain = try db.value(
        Bool.self, "SELECT conflict = 0 FROM revisions WHERE id = ? AND container = ? AND item = ?",
        [earlier, container, item])
      if onChain != true || earlier > revision || conflict { since = nil }
    }
    let change: ManifestChange
    if conflict {
      change = try Self.conflictManifest(db, row: row, container: container, item: item)
    } else if let since {
      change = try Self.changes(
        db, container: container, item: item, from: since, to: revision, edits: edits)
    } else {
      change = ManifestChange(
        upserted: try Self.members(db, container: container, item: item, at: revision))
    }
    return try RevisionManifest(
      item: item, revision: revision, since: since, kind: kind, path: row["path"],
      deleted: row["deleted"], conflict: conflict, change: change)
  }

  static func members(_ db: any SQLSession, container: Int64, item: String, at revision: Int64)
    throws -> [ManifestMember]
  {
    try db.rows(
      """
      SELECT * FROM members WHERE container = ? AND item = ? AND since <= ?
        AND (until IS NULL OR until > ?) ORDER BY path
      """, [container, item, revision, revision]
    ).map(MemberRow.member)
  }

  private static func changes(
    _ db: any SQLSession, container: Int64, item: String, from since: Int64, to revision: Int64,
    edits: Bool
  ) throws -> ManifestChange {
    let upserted = try db.rows(
      """
      SELECT * FROM members WHERE container = ? AND item = ? AND since > ? AND since <= ?
        AND (until IS NULL OR until > ?) ORDER BY path
      """, [container, item, since, revision, revision]
    ).map(MemberRow.member)
    let written = Set(upserted.map(\.path))
    // The members as they were at `since` that changed or went after it.
    let closed = try db.rows(
      """
      SELECT path\(edits ? ", chunks" : "") FROM members WHERE container = ? AND item = ?
        AND since <= ? AND until > ? AND until <= ? ORDER BY path
      """, [container, item, since, since, revision])
    var then: [String: [ChunkReference]] = [:]
    for row in closed where edits {
      then[try row["path"]] = MemberRow.decode([UInt8]((try row["chunks"] as Data?) ?? Data()))
    }
    let change = ManifestChange(
      upserted: upserted,
      removed: try closed.map { try $0["path"] as String }.filter { !written.contains($0) })
    return edits ? change.editing(base: then) : change
  }

  /// A conflict revision's whole manifest: its base's, with its own change laid over it.
  static func conflictManifest(
    _ db: any SQLSession, row: SQLRow, container: Int64, item: String
  ) throws -> ManifestChange {
    let change = try JSONDecoder().decode(
      ManifestChange.self, from: (try row["change"] as Data?) ?? Data("{}".utf8))
    if try row["deleted"] as Bool { return ManifestChange() }
    var byPath: [String: ManifestMember] = [:]
    if let base: Int64 = try row["base"] {
      for member in try members(db, container: container, item: item, at: base) {
        byPath[member.path] = member
      }
    }
    for path in change.removed { byPath[path] = nil }
    for member in change.upserted { byPath[member.path] = member }
    return ManifestChange(upserted: byPath.values.sorted { $0.path < $1.path })
  }
}
