import Foundation
import QuireSyncProtocol

/// A collection's children (Depth 1): a folder's items and the folders they imply, or a
/// package's members.
extension DAVStore {
  /// What collection `resource` holds directly (Depth 1), in no set order (WebDAV sets none).
  func children(of resource: DAVResource, drive: DAVDrive) throws(SyncError) -> [DAVResource] {
    var settled: [DAVResource] = []
    let rest = try children(of: resource, drive: drive) { settled += $0 }
    return settled + rest
  }

  /// What collection `resource` holds directly, as it is read: `settled` gets, in batches of
  /// about `batch`, the children no later row can change (a file and its time), while the
  /// rows are still being read, so a caller can write them meanwhile; the rest (folders,
  /// packages and files whose time is their revision's) is returned at the end.
  func children(
    of resource: DAVResource, drive: DAVDrive, batch: Int = 256,
    settled: ([DAVResource]) -> Void
  ) throws(SyncError) -> [DAVResource] {
    try read { db in
      guard let container = try Self.containerID(db, drive: drive) else { return [] }
      switch resource.kind {
      case .file, .member:
        return []
      case .folder:
        return try Self.folderChildren(
          db, container: container, folder: resource.path, batch: batch, settled: settled)
      case .package(let item, let revision):
        return try Self.memberChildren(
          db, container: container, item: item, revision: revision, folder: "",
          at: resource.path, modified: resource.modified)
      case .memberFolder(let item, let revision, let member):
        return try Self.memberChildren(
          db, container: container, item: item, revision: revision, folder: member,
          at: resource.path, modified: resource.modified)
      }
    }
  }

  /// The rows of a folder's listing read at a time.
  static let listingPage = 1024
  /// The rows of one subfolder's subtree read before the rest of it is skipped: a small
  /// subfolder costs no extra query, a big one costs no more rows.
  static let skipAfter = 32

  /// Ends a page of a folder's listing early, to skip the rest of a subfolder's subtree.
  private struct SkipSubtree: Error {}

  static func folderChildren(
    _ db: any SQLSession, container: Int64, folder: DAVPath, batch: Int,
    settled: ([DAVResource]) -> Void
  ) throws -> [DAVResource] {
    let prefix = folder.prefix
    // Each name once: an item, or a folder its first deeper row implies, in the order the
    // index gives them (a dictionary of the resources, sorted at the end, was a fifth of a
    // 10 000-item PROPFIND). `named` maps a name to its index in `children`, or to `handed`
    // for a file already given to `settled`.
    let handed = -1
    var ready: [DAVResource] = []
    ready.reserveCapacity(min(batch, 4096))
    var children: [DAVResource] = []
    var named: [String: Int] = [:]
    named.reserveCapacity(256)
    var undated: [(index: Int, revision: Int64)] = []
    // The rows come in the index's (byte) order, a page at a time. A subfolder's rows are
    // consecutive: once `skipAfter` of them have named it, the rest of its subtree is skipped
    // by starting the next page past it, so listing a folder costs its children, not its
    // subtree (the drive's top folder of 100 000 files read them all).
    // One lower bound only: given several, SQLite seeks the index by the first, so each page
    // walked again from the folder's first row. The first page and one after a skip start at
    // a path (inclusive), a page after a full one after the last path read.
    let end = String(decoding: prefix.utf8.dropLast(), as: UTF8.self) + "0"
    let sql = { (bound: String) in
      """
      SELECT i.item, i.kind, i.path, i.current, m.size, m.modified,
          substr(m.hash, 1, 32) AS hash
        FROM items i LEFT JOIN members m ON m.container = i.container AND m.item = i.item AND m.path = ''
          AND m.until IS NULL
        WHERE i.container = ? AND i.deleted = 0 AND i.path \(bound) ?\(db.byteOrder)
          AND i.path < ?\(db.byteOrder) AND substr(i.path, 1, length(?)) = ?
        ORDER BY i.path\(db.byteOrder) LIMIT ?
      """
    }
    let (from, after) = (sql(">="), sql(">"))
    var lower = (sql: from, path: prefix)
    var subfolder: (name: String, rows: Int)? = nil
    while true {
      var read = 0
      do {
        try db.forEach(
          lower.sql, [container, lower.path, end, prefix, prefix, Self.listingPage]
        ) { row in
          read += 1
          let path: String = try row["path"]
          lower = (after, path)
          let (name, deeper) = path.component(after: prefix.utf8.count)
          if deeper {
            let rows = subfolder?.name == name ? subfolder!.rows + 1 : 1
            subfolder = (name, rows)
            if rows > Self.skipAfter { throw SkipSubtree() }
            if named[name] == nil {
              named[name] = children.count
              children.append(DAVResource(path: folder.appending(name), kind: .folder))
            }
            return
          }
          subfolder = nil
          let item: String = try row["item"]
          let revision: Int64 = try row["current"]
          let resource: DAVResource
          let place = DAVPath(stored: path, view: folder.view)  // the folder's prefix and the name
          if try row["kind"] as String == ItemKind.package.rawValue {
            resource = DAVResource(
              path: place, kind: .package(item: item, revision: revision), etag: "r\(revision)")
          } else {
            let modified: Double? = try row["modified"]
            resource = DAVResource(
              path: place, kind: .file(item: item, revision: revision),
              size: try row["size"] ?? 0, modified: modified.flatMap { $0 > 0 ? $0 : nil },
              etag: DAVResource.etag(hex: try row["hash"]))
          }
          // An item's name beats a folder its deeper rows implied (as the look-up of a path does).
          if let index = named[name] {
            guard index != handed else { return }  // two live items never share a path
            children[index] = resource
            if resource.modified == nil { undated.append((index, revision)) }
          } else if resource.modified == nil {
            named[name] = children.count
            undated.append((children.count, revision))
            children.append(resource)
          } else {
            named[name] = handed
            ready.append(resource)
            if ready.count >= batch {
              settled(ready)
              ready.removeAll(keepingCapacity: true)
            }
          }
        }
      } catch is SkipSubtree {
        // Every path under "name/" sorts before "name0" ("0" is the byte after "/").
        lower = (from, prefix + subfolder!.name + "0")
        subfolder = nil
        continue
      }
      if read < Self.listingPage { break }
    }
    if !ready.isEmpty { settled(ready) }
    // A package shows when its revision was committed, as does a file whose member has no
    // time of its own. Read for those alone, in batches: joined with every row, the revisions
    // cost a listing of 10 000 files as many searches.
    for start in stride(from: 0, to: undated.count, by: 500) {
      let batch = undated[start..<min(start + 500, undated.count)]
      var committed: [Int64: Double] = [:]
      try db.forEach(
        """
        SELECT id, committed FROM revisions
          WHERE id IN (\(Array(repeating: "?", count: batch.count).joined(separator: ", ")))
        """, batch.map(\.revision)
      ) { row in committed[try row["id"]] = try row["committed"] }
      for (index, revision) in batch { children[index].modified = committed[revision] }
    }
    try db.forEach(
      """
      SELECT path, created FROM davFolders WHERE container = ?
        AND \(db.startsWith("path"))
      """, [container] + db.startsWithArguments(prefix)
    ) { row in
      let path: String = try row["path"]
      let (name, deeper) = path.droppingBytes(prefix.utf8.count).firstComponent
      guard !name.isEmpty else { return }
      let made = DAVResource(
        path: folder.appending(name), kind: .folder, modified: deeper ? nil : try row["created"])
      switch named[name] {
      case handed?:
        return
      case let index?:
        if children[index].kind == .folder, children[index].modified == nil {
          children[index] = made
        }
      case nil:
        named[name] = children.count
        children.append(made)
      }
    }
    return children
  }
}
