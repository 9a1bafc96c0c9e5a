import Foundation
import QuireSyncProtocol

/// What a public link shows: an item's current revision and whose account holds its chunks.
struct LinkedDocument: Sendable {
  var account: Int64
  var path: String
  var kind: ItemKind
  var members: [ManifestMember]

  /// The document's name, the last part of its path.
  var name: String { String(path.split(separator: "/").last ?? Substring(path)) }
}

extension ShareStore {
  /// `item`'s public link, made if `create` and it has none; nil if it has none and `create` is
  /// false. `notFound` if `user` has no such live item in the container.
  func publicLink(container identifier: String, item: String, user: Int64, create: Bool)
    throws(SyncError) -> PublicLink?
  {
    let find = { (db: any SQLSession) throws -> (Int64, PublicLink?) in
      let container = try Self.liveItem(db, identifier, item: item, user: user)
      let link = try db.row(
        "SELECT token, created FROM links WHERE container = ? AND item = ? AND revoked = 0",
        [container, item]
      ).map { try PublicLink(token: $0["token"], item: item, created: $0["created"]) }
      return (container, link)
    }
    guard create else { return try read { db in try find(db).1 } }
    return try write { db in
      let (container, existing) = try find(db)
      if let existing { return existing }
      let link = PublicLink(
        token: AccountStore.randomToken(), item: item, created: Date().timeIntervalSince1970)
      try db.execute(
        "INSERT INTO links(token, container, item, created) VALUES (?, ?, ?, ?)",
        [link.token, container, item, link.created])
      return link
    }
  }

  /// Revokes `item`'s public link: its address gives 404 from now on. `notFound` if it has none.
  func revokePublicLink(container identifier: String, item: String, user: Int64)
    throws(SyncError)
  {
    try write { db throws in
      guard
        let container = try CommitStore.container(
          db, user: user, identifier: identifier, create: false),
        try db.execute(
          "UPDATE links SET revoked = 1 WHERE container = ? AND item = ? AND revoked = 0",
          [container, item]) > 0
      else {
        throw SyncError(.notFound, "Item \(item) in \(identifier) has no public link.")
      }
    }
  }

  /// The document behind the link `token`, as it is now; `notFound` if the link is unknown or
  /// revoked, or its item was deleted.
  func linkedDocument(token: String) throws(SyncError) -> LinkedDocument {
    try read { db throws in
      guard
        let row = try db.row(
          """
          SELECT c.account, i.container, i.item, i.kind, i.path, i.current
          FROM links l JOIN items i ON i.container = l.container AND i.item = l.item
            JOIN containers c ON c.id = l.container
          WHERE l.token = ? AND l.revoked = 0 AND i.deleted = 0
          """, [token])
      else {
        throw SyncError(.notFound, "There is no such link: it was revoked, or never made.")
      }
      return try LinkedDocument(
        account: row["account"], path: row["path"],
        kind: ItemKind(rawValue: row["kind"]) ?? .package,
        members: CommitStore.members(
          db, container: row["container"], item: row["item"], at: row["current"]))
    }
  }

  /// The bytes of `member`, one of `account`'s documents' members, read whole: for what is
  /// bounded (a page's text, an archive's member). A download sends ``download(of:account:)``.
  func contents(of member: ManifestMember, account: Int64) throws(SyncError) -> [UInt8] {
    let download = try download(of: member, account: account)
    var bytes: [UInt8] = []
    for slice in download.slices { bytes += try download.body(of: slice) }
    return bytes
  }

  /// `member`'s chunks located, in its order, to be sent a slice at a time: a link's download
  /// of a file of any size holds a few MiB of it.
  func download(of member: ManifestMember, account: Int64) throws(SyncError) -> ChunkDownload {
    let hashes = member.chunks.map(\.hash)
    let locations = try read { db in try ChunkStore.locations(db, user: account, hashes: hashes) }
    var pieces: [(hash: ContentHash, location: BlobLocation)] = []
    for hash in hashes {
      guard let location = locations[hash] else {
        throw SyncError(.notFound, "The chunk \(hash) of “\(member.path)” is not stored.")
      }
      pieces.append((hash, location))
    }
    return ChunkDownload(pieces: pieces, blobs: try blobs, framed: false)
  }

  /// The container holding `user`'s live `item`; `notFound` otherwise.
  static func liveItem(
    _ db: any SQLSession, _ identifier: String, item: String, user: Int64
  )
    throws -> Int64
  {
    guard
      let container = try CommitStore.container(
        db, user: user, identifier: identifier, create: false),
      try db.value(
        Bool.self, "SELECT deleted = 0 FROM items WHERE container = ? AND item = ?",
        [container, item]) == true
    else {
      throw SyncError(.notFound, "There is no item \(item) in \(identifier).")
    }
    return container
  }
}
