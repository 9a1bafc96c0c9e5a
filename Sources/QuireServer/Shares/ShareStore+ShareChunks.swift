import Foundation
import QuireSyncProtocol

/// Which chunks a participant may read, or name in a commit, through a share: those of every
/// revision of the shared item (of every item ever in the shared folder), and those it uploaded
/// through the share. So a participant cannot probe the owner's other files by hash.
///
/// Cost: a document share reads its item's members; a folder share reads the revisions since
/// its last check (``ShareChunkCache``), not the folder. A chunk not found that way is checked
/// against the whole folder again before a request is refused (`confirm`), so the cache can
/// only make a check cheaper, never refuse what is allowed.
extension ShareStore {
  /// Those of `hashes` that `shared` allows. With `confirm`, one not found in the share's
  /// cache is looked for in the whole folder before it is left out (a refusal is final);
  /// without, it is left out (a chunk to upload once more).
  func allowed(
    _ hashes: [ContentHash], of shared: SharedItem, in db: any SQLSession, confirm: Bool
  ) throws -> Set<ContentHash> {
    guard let folder = shared.folder else {
      let all = try Self.allowedChunks(db, shared, counting: shareChunks)
      return Set(hashes.filter(all.contains))
    }
    var entry = shareChunks.entry(shared.share, folder: folder)
    try extend(&entry, shared, db)
    shareChunks.keep(entry, for: shared.share)
    var allowed = Set(hashes.filter(entry.chunks.contains))
    let rest = hashes.filter { !allowed.contains($0) }
    guard !rest.isEmpty else { return allowed }
    allowed.formUnion(try Self.uploaded(rest, through: shared.share, db))
    guard confirm, hashes.contains(where: { !allowed.contains($0) }) else { return allowed }
    let all = try Self.allowedChunks(db, shared, counting: shareChunks)
    return Set(hashes.filter(all.contains))
  }

  /// Adds to `entry` what the folder's items gained after its last revision: a revision of an
  /// item already in brings its own members; an item appearing in the folder brings all of
  /// its members, of every revision.
  private func extend(
    _ entry: inout ShareChunkCache.Entry, _ shared: SharedItem, _ db: any SQLSession
  )
    throws
  {
    let prefix = entry.folder + "/"
    let revisions = try db.rows(
      "SELECT id, item, path FROM revisions WHERE container = ? AND id > ? ORDER BY id",
      [shared.container, entry.revision])
    var read = 0
    for revision in revisions {
      let id: Int64 = try revision["id"]
      let item: String = try revision["item"]
      entry.revision = max(entry.revision, id)
      let rows: [SQLRow]
      if entry.items.contains(item) {
        rows = try db.rows(
          "SELECT chunks FROM members WHERE container = ? AND item = ? AND since = ?",
          [shared.container, item, id])
      } else if SharedItem.path(try revision["path"] as String, startsWith: prefix) {
        entry.items.insert(item)
        rows = try db.rows(
          "SELECT chunks FROM members WHERE container = ? AND item = ?", [shared.container, item])
      } else {
        continue
      }
      read += rows.count
      for row in rows {
        for chunk in MemberRow.decode([UInt8]((try row["chunks"] as Data?) ?? Data())) {
          entry.chunks.insert(chunk.hash)
        }
      }
    }
    shareChunks.noteMembersRead(read)
  }

  /// Those of `hashes` uploaded through `share`.
  static func uploaded(_ hashes: [ContentHash], through share: String, _ db: any SQLSession)
    throws -> Set<ContentHash>
  {
    var found = Set<ContentHash>()
    for start in stride(from: 0, to: hashes.count, by: 500) {
      let batch = hashes[start..<min(start + 500, hashes.count)]
      let marks = Array(repeating: "?", count: batch.count).joined(separator: ",")
      for hex in try db.values(
        String.self, "SELECT hash FROM shareUploads WHERE share = ? AND hash IN (\(marks))",
        [share] + batch.map(\.hex))
      {
        if let hash = ContentHash(hex: hex) { found.insert(hash) }
      }
    }
    return found
  }
}
