import Foundation
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension ChunkStore {
  /// Frees the chunks no version needs: those of removed conflict versions (a conflict settled
  /// and its versions removed, as NSFileVersion's `removeOtherVersionsOfItem` asks), and packs a
  /// crashed upload left that no row names. A chunk or pack younger than `grace` is kept, so an
  /// upload whose commit is still on its way is never collected under it.
  ///
  /// Every revision on an item's chain keeps its chunks, removed or not: a device that was
  /// offline may still hold one as the base of its next commit, and the server merges against
  /// that base's bytes. Rows are removed in one transaction; the files after it, so a crash in
  /// between leaves only files no row names, which the next collection deletes.
  ///
  /// First, history thins with age by `thinning` (by commit time): a thinned revision leaves
  /// the item's version list (its bytes stay, as above). The current revision and conflict
  /// revisions are never thinned.
  ///
  /// The cost is one pass over every member and conflict revision: run it now and then
  /// (`quire server gc`, or the server's own periodic run), not per request.
  public func collectGarbage(
    grace: Duration = .seconds(3600), thinning: VersionThinning? = .standard, now: Date = Date()
  ) throws(SyncError) -> CollectionReport {
    let oldest = now.addingTimeInterval(-Double(grace.components.seconds))
    var report = CollectionReport()
    var doomedPacks: [String] = []
    var doomedLoose: [String] = []
    let blobs = try self.blobs
    let stored = try blobs.packs()
    let named: Set<String> = try write { db in
      if let thinning { report.thinned = try Self.thin(db, thinning, now: now) }
      let needed = try Self.neededChunks(db)
      var removed = 0
      for row in try db.rows("SELECT account, hash, pack FROM chunks") {
        let user: Int64 = try row["account"]
        let hash: String = try row["hash"]
        if let parsed = ContentHash(hex: hash), needed[user]?.contains(parsed) == true { continue }
        let pack: String? = try row["pack"]
        let blob = pack.map { stored[$0] } ?? blobs.looseChunk(hash)
        guard let blob, blob.modified <= oldest else { continue }
        try db.execute("DELETE FROM chunks WHERE account = ? AND hash = ?", [user, hash])
        removed += 1
        if pack == nil { doomedLoose.append(hash) }
      }
      report.chunks = removed
      return Set(
        try db.values(String.self, "SELECT DISTINCT pack FROM chunks WHERE pack IS NOT NULL"))
    }
    for (name, blob) in stored where !named.contains(name) && blob.modified <= oldest {
      doomedPacks.append(name)
    }
    let freed =
      doomedPacks.map { blobs.removePack($0) ? stored[$0]?.size : nil }
      + doomedLoose.map(blobs.removeLooseChunk)
    for case let bytes? in freed {
      report.files += 1
      report.bytes += bytes
    }
    return report
  }

  /// Marks removed the revisions `thinning` no longer keeps, item by item; returns how many.
  private static func thin(_ db: any SQLSession, _ thinning: VersionThinning, now: Date) throws
    -> Int
  {
    var byItem: [String: [(id: Int64, date: Date)]] = [:]
    try db.forEach(
      """
      SELECT r.id, r.container, r.item, r.committed FROM revisions r
      JOIN items i ON i.container = r.container AND i.item = r.item
      WHERE r.conflict = 0 AND r.deleted = 0 AND r.removed = 0 AND r.id != i.current
      """, []
    ) { row in
      let key = "\(try row["container"] as Int64)/\(try row["item"] as String)"
      byItem[key, default: []].append(
        (try row["id"], Date(timeIntervalSince1970: try row["committed"] as Double)))
    }
    var count = 0
    for revisions in byItem.values {
      for id in thinning.versionsToRemove(revisions, now: now) {
        try db.execute("UPDATE revisions SET removed = 1 WHERE id = ?", [id])
        count += 1
      }
    }
    return count
  }

  /// The chunks some version needs, by account: every member row's (the chains, removed
  /// revisions included) and every conflict revision's that is not removed.
  private static func neededChunks(_ db: any SQLSession) throws -> [Int64: Set<ContentHash>] {
    var needed: [Int64: Set<ContentHash>] = [:]
    try db.forEach(
      "SELECT c.account, m.chunks FROM members m JOIN containers c ON c.id = m.container", []
    ) { row in
      let user: Int64 = try row["account"]
      for chunk in MemberRow.decode([UInt8]((try row["chunks"] as Data?) ?? Data())) {
        needed[user, default: []].insert(chunk.hash)
      }
    }
    let decoder = JSONDecoder()
    for row in try db.rows(
      """
      SELECT c.account, r.change FROM revisions r JOIN containers c ON c.id = r.container
      WHERE r.conflict = 1 AND r.removed = 0 AND r.change IS NOT NULL
      """)
    {
      let user: Int64 = try row["account"]
      let change = try decoder.decode(ManifestChange.self, from: try row["change"] as Data)
      for member in change.upserted {
        needed[user, default: []].formUnion(member.chunks.map(\.hash))
      }
    }
    return needed
  }
}
