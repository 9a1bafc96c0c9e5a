import Foundation
import QuireSyncProtocol

/// Items and folders shared with other accounts, what participants read and commit through
/// them, and public links. Its tables are `shares`, `shareUploads` and `links`.
public struct ShareStore: StoreAggregate {
  let backend: StoreBackend
  /// The owner's commits, which participants read and add to.
  let commits: CommitStore
  /// The owner's chunks, which participants read and add to.
  let chunks: ChunkStore
  /// What each folder share's chunk checks already read (``allowed(_:of:in:confirm:)``).
  let shareChunks = ShareChunkCache()
}

extension ShareStore {
  /// Shares `user`'s live `item` with the account `name` in `role` (sharing again changes the
  /// role). `notFound` if `user` has no such item or there is no such account; `forbidden` to
  /// share with oneself.
  func share(
    container identifier: String, item: String, user: Int64, with name: String, role: ShareRole
  ) throws(SyncError) -> ShareInfo {
    try write { db throws in
      let container = try Self.liveItem(db, identifier, item: item, user: user)
      return try Self.grant(
        db, container: container, item: item, folder: nil, user: user, to: name, role: role)
    }
  }

  /// Shares `user`'s `item` (or `folder`, with an empty `item`) in `container` with the account
  /// `name` in `role`, or changes the role of the share it has; `forbidden` to share with
  /// oneself.
  static func grant(
    _ db: any SQLSession, container: Int64, item: String, folder: String?, user: Int64,
    to name: String, role: ShareRole
  ) throws -> ShareInfo {
    let grantee = try AccountStore.account(db, named: name)
    guard grantee != user else {
      throw SyncError(
        .forbidden,
        "“\(name)” owns this \(folder == nil ? "item" : "folder") already; share it with another account."
      )
    }
    let now = Date().timeIntervalSince1970
    let same = "container = ? AND item = ? AND coalesce(folder, '') = ? AND grantee = ?"
    let key: [any SQLArgument] = [container, item, folder ?? "", grantee]
    if try db.execute(
      "UPDATE shares SET role = ?, created = ? WHERE \(same) AND revoked = 0",
      [role.rawValue, now] + key) == 0
    {
      try db.execute(
        """
        INSERT INTO shares(id, container, item, folder, grantee, role, created)
        VALUES (?, ?, ?, ?, ?, ?, ?)
        """,
        [UUID().uuidString.lowercased(), container, item, folder, grantee, role.rawValue, now])
    }
    return try shares(
      db, "s.container = ? AND s.item = ? AND coalesce(s.folder, '') = ? AND s.grantee = ?", key)[0]
  }

  /// Who `user`'s `item` is shared with; `notFound` if `user` has no such item.
  func shares(container identifier: String, item: String, user: Int64) throws(SyncError)
    -> [ShareInfo]
  {
    try read { db throws in
      let container = try Self.liveItem(db, identifier, item: item, user: user)
      return try Self.shares(db, "s.container = ? AND s.item = ?", [container, item])
    }
  }

  /// Every share of `user`'s items in the container (none if it has no such container).
  func shares(container identifier: String, user: Int64) throws(SyncError) -> [ShareInfo] {
    try read { db throws in
      guard
        let container = try CommitStore.container(
          db, user: user, identifier: identifier, create: false)
      else { return [] }
      return try Self.shares(db, "s.container = ?", [container])
    }
  }

  /// Stops sharing `user`'s `item` with the account `name`: its routes answer `notFound` from
  /// now on, and its devices remove the item. `notFound` if it was not shared with `name`.
  func unshare(container identifier: String, item: String, user: Int64, with name: String)
    throws(SyncError)
  {
    try write { db throws in
      guard
        let container = try CommitStore.container(
          db, user: user, identifier: identifier, create: false),
        let grantee = try? AccountStore.account(db, named: name),
        let id = try db.value(
          String.self,
          "SELECT id FROM shares WHERE container = ? AND item = ? AND grantee = ? AND revoked = 0",
          [container, item, grantee])
      else {
        throw SyncError(.notFound, "Item \(item) in \(identifier) is not shared with “\(name)”.")
      }
      try db.execute("UPDATE shares SET revoked = 1 WHERE id = ?", [id])
      try db.execute("DELETE FROM shareUploads WHERE share = ?", [id])
    }
  }

  /// The items other accounts share with `user`, whose items are still there.
  func sharedWith(user: Int64) throws(SyncError) -> [ShareInfo] {
    try read { db throws in
      // A participant sees a shared folder at its name, not where the owner keeps it.
      try Self.shares(db, "s.grantee = ?", [user]).map { share in
        var share = share
        share.folder = nil
        return share
      }
    }
  }

  /// The live shares (of live items) matching `condition` on `shares s`, oldest first.
  static func shares(_ db: any SQLSession, _ condition: String, _ arguments: [any SQLArgument])
    throws -> [ShareInfo]
  {
    try db.rows(
      """
      SELECT s.id, s.item, s.folder, s.role, s.created, o.name AS owner, g.name AS grantee,
        i.path, i.kind
      FROM shares s JOIN containers c ON c.id = s.container JOIN users o ON o.id = c.account
        JOIN users g ON g.id = s.grantee
        LEFT JOIN items i ON i.container = s.container AND i.item = s.item
      WHERE s.revoked = 0 AND (s.folder IS NOT NULL OR i.deleted = 0) AND \(condition)
      ORDER BY s.created, s.id
      """, arguments
    ).map { row in
      let folder: String? = try row["folder"]
      let path: String = try folder ?? row["path"]
      return try ShareInfo(
        id: row["id"], owner: row["owner"], user: row["grantee"], item: row["item"],
        name: String(path.split(separator: "/").last ?? Substring(path)),
        kind: folder == nil ? ItemKind(rawValue: row["kind"]) ?? .package : .package,
        isFolder: folder != nil,
        folder: folder.map { String($0.dropFirst("Documents/".count)) },
        role: ShareRole(rawValue: row["role"]) ?? .read, created: row["created"])
    }
  }
}
