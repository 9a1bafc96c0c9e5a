import Foundation
import Quire
import QuireSyncProtocol

/// Bringing one item to a revision: its manifest, its chunks (fetched, copied from the file on
/// disk, or rebuilt from deltas), and the write that places it.
extension SyncAgent {
  /// Brings the item to `revision`: only what changed since `base` when the folder still holds
  /// `base`, else everything; moves it first if its path changed.
  ///
  /// A `prefetched` whole manifest of `revision` saves asking for it, and `chunks` already
  /// fetched are not fetched again. A new package's members that `keepsInCloud` are placed as
  /// member placeholders, their bytes not fetched.
  ///
  /// `sent` is what this device just uploaded of an item it had no record of, which the server
  /// merged: the members as read then are what the folder may hold, so a package still as sent
  /// is replaced (one changed since is kept, as ever). Without it, such a package, found with
  /// no record, would be kept and sent again, forever.
  func download(
    item id: String, revision: Int64, base: SyncedItem?, sent: SyncedItem? = nil,
    prefetched: RevisionManifest? = nil,
    chunks fetchedBefore: [ContentHash: [UInt8]] = [:], progress: DownloadProgress? = nil,
    keepsInCloud: (ManifestMember) -> Bool = { _ in false }
  ) async throws {
    var manifest: RevisionManifest
    if let prefetched {
      manifest = prefetched
    } else if let base {
      manifest = try await client.manifest(
        item: id, revision: revision, since: base.revision,
        base: base.members.mapValues(\.chunks))
    } else {
      manifest = try await client.manifest(item: id, revision: revision)
    }
    if share?.role == .read {
      // Written without write permission: editors, and a Quire Document, open it read-only.
      for index in manifest.change.upserted.indices {
        manifest.change.upserted[index].mode &= ~0o222
      }
    }
    manifest.path = movedSince(manifest.path, revision: manifest.revision)
    guard manifest.path.hasPrefix("Documents/") else { return }
    if manifest.deleted {  // deleted there since the entry that asked for it
      if let local = locate(id, known: synced[id]) {
        // Modification beats deletion: an edit made here since the last sync, or a save that
        // races the move, stays, and the next push sends it.
        if let known = synced[id], !known.matches(local) {
          needsPush = true
          return
        }
        guard try trashForDeletion(local) else { return }
      }
      try state.forget(id)
      synced[id] = nil
      return
    }
    let relative = String(manifest.path.dropFirst("Documents/".count))
    try SyncPath.check(relative, what: "item path")
    let incremental = base != nil && manifest.since == base?.revision
    state.setStatus(id, path: relative, state: .downloading)
    let folder = root
    let onDisk =
      incremental
      ? LocalChunks(base: base!) {
        [relative, base!.path].lazy.map { folder.appendingPathComponent($0) }
          .first { ItemIdentity.stored(at: $0) == id }
      } : LocalChunks()
    var wanted: [ContentHash: Int] = [:]
    let inCloud =
      incremental || manifest.kind != .package
      ? [] : Set(manifest.change.upserted.filter(keepsInCloud).map(\.path))
    for member in manifest.change.upserted where !inCloud.contains(member.path) {
      for chunk in member.chunks
      where !onDisk.contains(chunk.hash) && fetchedBefore[chunk.hash] == nil {
        wanted[chunk.hash] = chunk.size
      }
    }
    // A whole flat file, every chunk fetched: the spool is laid out as the file, and becomes it.
    let whole = manifest.change.upserted.first.flatMap { member in
      manifest.kind == .file && !incremental
        && member.chunks.allSatisfy { wanted[$0.hash] != nil } ? member.chunks : nil
    }
    let chunks =
      try unfinished.take(item: id, revision: revision, laidOut: whole != nil)
      ?? ChunkSpool(bytes: wanted.values.reduce(0, +), in: folder, layout: whole)
    var kept = false
    defer { if !kept { chunks.discard() } }
    if incremental, share == nil, let base {
      await fetchDeltas(wanted, of: manifest, base: base, onDisk: onDisk, into: chunks)
    }
    do {
      // A try after a cut fetches only what its spool lacks.
      try await fetch(
        wanted.filter { !chunks.holds($0.key) }, into: chunks, for: id, path: relative,
        progress: progress, held: wanted.filter { chunks.holds($0.key) }.values.reduce(0, +))
    } catch {
      unfinished.keep(chunks, item: id, revision: revision)
      kept = true
      throw error
    }
    let writer = DownloadWriter(folder: folder, identity: id)
    let previous = synced[id]
    var members = incremental ? base!.members : [:]
    if let base, incremental, base.path != relative {
      try writer.move(from: base.path, to: relative)
    }
    if isPuttingBack(id) { throw puttingBack(relative) }
    let syncedTree = synced  // the tree as it is, for the writer to ask (not a set of every key)
    let late = LatePutBack { [weak self] in Task { await self?.putBackDone(id) } }
    defer { holdForPutBack(id, count: late.count) }
    // Before the write: a stat not older than this may hide a write in the same tick.
    let now = fileSystemNow()
    let (placed, written) = try writer.write(
      manifest, to: relative,
      chunk: { hash in
        if let fetched = try chunks.bytes(of: hash) ?? fetchedBefore[hash] { return fetched }
        if let held = try onDisk.bytes(of: hash) { return held }
        throw SyncError(
          .internalError, "Chunk \(hash) of “\(relative)” was neither fetched nor held.")
      }, incremental: incremental,
      expecting: (base ?? previous ?? sent)?.members.mapValues(\.local) ?? [:],
      // Only a document the pull found on disk (a `base`) is refused if it is gone by now: one
      // it did not find (moved aside as "my changes", deleted) is written anew, as before.
      replacing: base.map { !$0.isPlaceholder && (incremental || $0.path == relative) } ?? false,
      isUnsynced: { share == nil && !syncedTree.contains($0) }, inCloud: inCloud,
      wholeFile: chunks.wholeFile, latePutBack: late)
    for path in manifest.change.removed { members[path] = nil }
    for member in manifest.change.upserted {
      guard let local = written[member.path] else { continue }
      members[member.path] = SyncedItem.Member(
        local: local, hash: member.hash, chunks: member.chunks, checkedAt: now)
    }
    let record = SyncedItem(
      id: id, path: placed, kind: manifest.kind, revision: revision, members: members)
    try state.record(
      record, changed: manifest.change.upserted.map(\.path),
      removed: incremental ? manifest.change.removed : Array((previous?.members ?? [:]).keys))
    synced[id] = record
    state.setStatus(id, path: placed, state: nil)
  }

  /// Fetches the chunks `wanted` (with their sizes) into `spool`, a request per
  /// ``fetchBytes``, and reports the bytes so far to `progress` and, for `quire sync status`
  /// and the query's `percentDownloaded`, to the state; `held` bytes were in the spool before
  /// (a try after a cut), and count as done.
  ///
  /// The next ``fetchesAhead`` requests are on their way, their chunks checked against their
  /// hashes on other threads, while one's chunks are written to the spool, so the network,
  /// the hashing and the disk work at once; at most `fetchesAhead + 1` requests' chunks are in
  /// memory.
  func fetch(
    _ wanted: [ContentHash: Int], into spool: ChunkSpool, for id: String, path: String,
    progress: DownloadProgress?, held: Int = 0
  ) async throws {
    let total = held + wanted.values.reduce(0, +)
    var batches: [(hashes: [ContentHash], bytes: Int)] = []
    for hash in wanted.keys.sorted() {
      if batches.isEmpty || batches[batches.count - 1].bytes >= Self.fetchBytes {
        batches.append(([], 0))
      }
      batches[batches.count - 1].hashes.append(hash)
      batches[batches.count - 1].bytes += wanted[hash] ?? 0
    }
    let lists = batches.map(\.hashes)
    let client = client
    func request(_ index: Int) -> Task<[ContentHash: [UInt8]], any Error> {
      Task.detached { try await client.fetchChunks(lists[index]) }
    }
    // The next requests are on their way (and their chunks hashed) while one is written.
    var ahead = (0..<min(Self.fetchesAhead, batches.count)).map(request)
    defer { for task in ahead { task.cancel() } }
    var done = held
    if total > 8 << 20 { state.setProgress(id, path: path, done: held, total: total) }
    for index in batches.indices {
      try Task.checkCancellation()  // the requests ahead are cancelled as it returns
      guard !ahead.isEmpty else { break }
      let fetched = try await ahead.removeFirst().value
      if index + ahead.count + 1 < batches.count { ahead.append(request(index + ahead.count + 1)) }
      for (hash, bytes) in fetched { try spool.put(hash, bytes) }
      spool.written()
      state.count(batches[index].bytes, in: "downloadedBytes")
      done += batches[index].bytes
      progress?(Int64(done), Int64(total))
      if total > 8 << 20 { state.setProgress(id, path: path, done: done, total: total) }
    }
  }

  /// The bytes of chunks one fetch asks for.
  static var fetchBytes: Int { 4 << 20 }
  /// How many fetches are on their way while one is written.
  static var fetchesAhead: Int { 2 }
}
