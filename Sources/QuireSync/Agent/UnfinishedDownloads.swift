import QuireSyncProtocol

/// The spools of downloads whose fetch stopped part way (a cut connection, a server gone), kept
/// for the next try of the same revision of the same item, which then fetches only the chunks
/// still missing: a download cut at 900 MiB of 1 GiB does not start again from nothing.
///
/// Only spools on disk are kept (unnamed files, gone with the agent), at most ``limit`` of them;
/// the oldest is let go first. A spool is kept only when its fetch failed, never after the
/// writer had it: by then it may be the item's file itself.
struct UnfinishedDownloads {
  /// The most spools kept at once.
  static let limit = 4

  private var kept: [(item: String, revision: Int64, spool: ChunkSpool)] = []

  /// The spool kept for `revision` of `item`, laid out as `laidOut` says, handed over (and
  /// forgotten); a spool kept for another revision of it is let go.
  mutating func take(item: String, revision: Int64, laidOut: Bool) -> ChunkSpool? {
    guard let index = kept.firstIndex(where: { $0.item == item }) else { return nil }
    let found = kept.remove(at: index)
    guard found.revision == revision, found.spool.isLaidOut == laidOut else {
      found.spool.discard()
      return nil
    }
    return found.spool
  }

  /// Keeps `spool`, of a fetch of `revision` of `item` that failed, if it is on disk.
  mutating func keep(_ spool: ChunkSpool, item: String, revision: Int64) {
    guard spool.isOnDisk else {
      spool.discard()
      return
    }
    kept.removeAll { entry in
      guard entry.item == item else { return false }
      entry.spool.discard()
      return true
    }
    kept.append((item, revision, spool))
    while kept.count > Self.limit { kept.removeFirst().spool.discard() }
  }
}
