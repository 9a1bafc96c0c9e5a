import Foundation
import Quire
import QuireSyncProtocol

extension SyncAgent {
  /// Applies every journal entry after the cursor, in order, moving the cursor after each.
  ///
  /// An item this device has not synced yet is looked up in one scan of the folder per pull,
  /// not one per page or per entry, and the page's new flat documents are placed together
  /// (``placeNewFiles(_:prefetched:)``): a first sync of many items costs a scan and a
  /// few batches, not a scan, an fsync and several transactions per item.
  func pull() async throws {
    await followMovedShare()
    try await applyChangedEntries()
    // The folder's items this device has not synced, by identity, for entries of items new to
    // it: scanned once a pull, at the first page that needs them, not once a page. A first sync
    // reads hundreds of pages, and a scan per page made it quadratic in the folder's size. An
    // item synced meanwhile is found through `synced` first.
    var unsyncedHere: [String: LocalItem]?
    // The next page, with the manifests and bytes of the items it creates, is fetched while
    // this one is applied: the server's work and the round trips overlap the writes here.
    var ahead: Task<(ChangesPage, Prefetched), any Error>?
    defer { ahead?.cancel() }
    var page = Self.untilFolderMove(try await client.changes(since: state.cursor))
    noteServerReached()
    var fetchedAhead = Prefetched()
    var pending = PendingRecords()
    do {
      while true {
        if unsyncedHere == nil
          && page.entries.contains(where: { $0.folderMove == nil && !synced.contains($0.item) })
        {
          unsyncedHere = unsyncedItems()
        }
        let unsynced = unsyncedHere ?? [:]
        let prefetched = try await prefetch(page.entries, unsynced: unsynced, ahead: fetchedAhead)
        fetchedAhead = Prefetched()
        // Only while pages create items here (a first sync): a journal read again after a
        // shared folder's rename, or a folder linked with its files already here, fetches
        // nothing ahead that the page would not use.
        if page.more && !prefetched.manifests.isEmpty {
          ahead = Self.fetchAhead(
            client: client, since: page.cursor, policy: downloadPolicy, device: settings.device)
        }
        let choice = NewItemsChoice(
          entries: page.entries, isKnown: { synced.contains($0) || unsynced[$0] != nil },
          manifests: prefetched.manifests, hasChunk: { prefetched.chunks[$0] != nil },
          keepsInCloud: { keepsInCloud($0) })
        let files = try await placeNewFiles(choice.files, prefetched: prefetched)
        let placeholders = try placeNewPlaceholders(choice.placeholders)
        for record in placeholders.records { synced[record.id] = record }
        pending.add(placeholders: placeholders.records.compactMap { synced.record($0.id) })
        let placed = files.union(placeholders.sequences)
        for entry in page.entries {
          if placed.contains(entry.sequence) {
            pending.pass(entry)
            continue
          }
          try await pending.settleAndFlush(to: state) { synced.record($0) }
          if let move = entry.folderMove {
            try applyFolderMove(move, revisionsBefore: entry.revision)
            try state.advance(past: [entry])
            continue
          }
          try await applyOrNote(
            entry, local: locateForPull(entry) ?? unsynced[entry.item],
            prefetched: prefetched)
          try state.advance(past: [entry])
        }
        if !page.more {
          try await pending.settleAndFlush(to: state) { synced.record($0) }
        } else if pending.isFull {
          try await pending.settle()
          pending.queue(to: state) { synced.record($0) }
        }
        announceConflicts(page.entries)
        if !page.more { break }
        if let next = ahead {
          ahead = nil
          (page, fetchedAhead) = try await withTaskCancellationHandler {
            try await next.value
          } onCancel: {
            next.cancel()
          }
        } else {
          try await pending.settleAndFlush(to: state) { synced.record($0) }
          page = Self.untilFolderMove(try await client.changes(since: state.cursor))
        }
      }
    } catch {
      // A pull stopped part-way (cancelled, or a failure) records what it placed: the
      // placeholders are in the folder. If even that fails, they are not the agent's either,
      // and the next pull writes them again. A queued flush that failed is held again, and
      // tried once more with the rest.
      try? await pending.settle()
      if (try? pending.flush(to: state, current: { synced.record($0) })) == nil {
        for record in pending.placeholders where synced.record(record.id) === record {
          synced[record.id] = nil
        }
      }
      throw error
    }
    // Placeholders the policy no longer keeps (it changed to download them) come here now.
    for known in synced.values
    where known.isPlaceholder
      && !downloadPolicy.keepsInCloud(size: known.size)
    {
      try await downloadPlaceholder(at: known.path)
    }
    if downloadPolicy == .all {
      for known in synced.values where !known.isPlaceholder && known.hasMembersInCloud {
        try await downloadAllMembers(of: known.item)
      }
    }
  }

  /// The folder's items this device has not synced, by identity: from the last whole scan if
  /// nothing was said to change since (``scannedUnsynced``), else from a new scan. A share's
  /// agent always scans: where its scan looks follows the share (a moved folder, a renamed
  /// document), which no folder event says.
  func unsyncedItems() -> [String: LocalItem] {
    if share == nil, let last = scannedUnsynced, last.generation == localGeneration {
      return last.items.filter { !synced.contains($0.key) }
    }
    let generation = localGeneration
    let found = Dictionary(scan().filter { !synced.contains($0.id) }.map { ($0.id, $0) }) {
      first, _ in first
    }
    if share == nil { scannedUnsynced = (generation, found) }
    return found
  }

  /// `page` up to its first folder move: the move alone if it comes first, else what comes
  /// before it (the rest is read again after). A page's new items are placed before its entries
  /// are applied one by one, so an item created after a move must not be placed before it, nor
  /// moved by it.
  static func untilFolderMove(_ page: ChangesPage) -> ChangesPage {
    guard let index = page.entries.firstIndex(where: { $0.folderMove != nil }),
      page.entries.count > 1
    else { return page }
    let kept = Array(page.entries[..<max(index, 1)])
    return ChangesPage(entries: kept, cursor: kept[kept.count - 1].sequence, more: true)
  }

  /// Where the item of a journal entry is on disk, if this device synced it and has it (not as
  /// a placeholder). An entry already applied (this device's own commit, read back) needs no
  /// look: when the file had just been saved over, the look at its path did not find the
  /// item's identity there and scanned the whole drive for it, at every edit.
  private func locateForPull(_ entry: ChangeEntry) -> LocalItem? {
    guard !entry.conflict, entry.isInDocumentsScope, let known = synced.record(entry.item),
      !known.isPlaceholder, known.revision < entry.revision
    else { return nil }
    return locate(entry.item, known: known.item)
  }

  /// Applies `entry`; an item that cannot be brought here (a path this device refuses, a
  /// revision the server lost) gets its error, and everything else keeps syncing.
  private func applyOrNote(
    _ entry: ChangeEntry, local: LocalItem?, prefetched: Prefetched, attempts: Int = 0
  ) async throws {
    do {
      try await apply(entry, local: local, prefetched: prefetched)
    } catch let error as SyncError
      where ![.unavailable, .rateLimited, .unauthorized].contains(error.code)
    {
      let path =
        entry.path.hasPrefix("Documents/")
        ? String(entry.path.dropFirst("Documents/".count)) : entry.path
      if error.code == .changedWhileSyncing {
        // Another program wrote or moved it meanwhile: what it did is uploaded next and merged,
        // and the entry is applied again after that push. A write or a move commits a newer
        // revision, which makes the entry moot; a change the push does not commit (moved away
        // and back, or moved by a read-only participant) still gets the entry's revision.
        state.setStatus(entry.item, path: path, state: .waiting, error: nil)
        if attempts < Self.changedEntryAttempts {
          changedEntries.append((entry, attempts + 1))
          needsPull = true
        }
        needsPush = true
      } else {
        state.setStatus(entry.item, path: path, state: .downloadError, error: error)
      }
    }
  }

  /// How often an entry whose item keeps changing during its download is applied again before
  /// it is left to the item's next revision: a program that rewrites a file all the time must
  /// not keep the agent pulling.
  static let changedEntryAttempts = 3

  /// Applies again the entries whose download stopped because their item changed meanwhile.
  private func applyChangedEntries() async throws {
    var entries = changedEntries[...]
    changedEntries = []
    while let (entry, attempts) = entries.first {
      // A later revision of the item came since (an edit, a deletion), and was applied in its
      // turn: this one is moot, and applying it now would bring back what came after it.
      if let latest = state.remoteRevision(of: entry.item), latest > entry.revision {
        entries.removeFirst()
        continue
      }
      do {
        try await applyOrNote(
          entry, local: locateForPull(entry), prefetched: Prefetched(), attempts: attempts)
      } catch {
        changedEntries.append(contentsOf: entries)  // the server is away: they wait for it
        throw error
      }
      entries.removeFirst()
    }
  }

  /// The manifests and chunks of a page's items that are new to this device, fetched together
  /// (manifests and chunks in one request per thousand): a first sync of many
  /// small documents is a few round trips per page, not two per document. At most
  /// `byteLimit` bytes of chunks are held; the rest are fetched as each item is applied. What
  /// was fetched `ahead` (``fetchAhead(client:since:policy:device:)``) is not asked for again.
  private func prefetch(
    _ entries: [ChangeEntry], unsynced: [String: LocalItem], ahead: Prefetched,
    byteLimit: Int = 64 << 20
  ) async throws -> Prefetched {
    let wanted = entries.filter {
      !$0.conflict && !$0.deleted && $0.isInDocumentsScope && !synced.contains($0.item)
        && unsynced[$0.item] == nil
    }
    guard wanted.count > 1 else { return Prefetched() }
    var result = Prefetched()
    var missing: [ManifestBatch.Wanted] = []
    for entry in wanted {
      if let manifest = ahead.manifests[entry.item], manifest.revision == entry.revision {
        result.manifests[entry.item] = manifest
      } else {
        missing.append(ManifestBatch.Wanted(item: entry.item, revision: entry.revision))
      }
    }
    if !missing.isEmpty {
      for manifest in try await client.manifests(missing) {
        result.manifests[manifest.item] = manifest
      }
    }
    var hashes = Set<ContentHash>()
    var bytes = 0
    for manifest in result.manifests.values where !keepsInCloud(manifest) {
      let size = manifest.change.upserted.reduce(0) { $0 + $1.size }
      if bytes + size > byteLimit { continue }
      bytes += size
      for member in manifest.change.upserted {
        for chunk in member.chunks {
          if let held = ahead.chunks[chunk.hash] {
            result.chunks[chunk.hash] = held
          } else {
            hashes.insert(chunk.hash)
          }
        }
      }
    }
    let fetched = try await client.fetchChunks(Array(hashes))
    result.chunks.merge(fetched) { held, _ in held }
    state.count(result.chunks.values.reduce(0) { $0 + $1.count }, in: "downloadedBytes")
    return result
  }

  /// Fetches the journal page after `cursor` and, for the entries that create an item on
  /// another device, their whole manifests and (up to `byteLimit`) the bytes of those that
  /// `policy` downloads. It decides from the page alone, off the agent, so it can run while
  /// the agent applies the page before; ``prefetch(_:unsynced:ahead:byteLimit:)`` then takes
  /// what it needs from it.
  static func fetchAhead(
    client: SyncClient, since cursor: Int64, policy: DownloadPolicy, device: String,
    byteLimit: Int = 16 << 20
  ) -> Task<(ChangesPage, Prefetched), any Error> {
    Task.detached {
      let page = untilFolderMove(try await client.changes(since: cursor))
      let creating = page.entries.filter {
        !$0.conflict && !$0.deleted && $0.isInDocumentsScope && $0.base == nil
          && $0.device != device
      }
      guard creating.count > 1 else { return (page, Prefetched()) }
      var result = Prefetched()
      for manifest in try await client.manifests(
        creating.map { ManifestBatch.Wanted(item: $0.item, revision: $0.revision) })
      {
        result.manifests[manifest.item] = manifest
      }
      var hashes = Set<ContentHash>()
      var bytes = 0
      for manifest in result.manifests.values
      where !keepsInCloud(manifest, policy: policy) {
        let size = manifest.change.upserted.reduce(0) { $0 + $1.size }
        if bytes + size > byteLimit { continue }
        bytes += size
        for member in manifest.change.upserted { hashes.formUnion(member.chunks.map(\.hash)) }
      }
      result.chunks = try await client.fetchChunks(Array(hashes))
      return (page, result)
    }
  }

  /// Carries out what ``PullDecision`` says of `entry`, asking again after an upload.
  private func apply(_ entry: ChangeEntry, local found: LocalItem?, prefetched: Prefetched)
    async throws
  {
    // The record before anything is done: what a download tidies after it (a stale
    // placeholder of an item new here, the folder it left).
    let first = synced[entry.item]
    var known = first
    var local = found
    var uploaded = false
    while true {
      let step = PullDecision.step(
        for: entry, known: known, local: local, downloadsAll: downloadPolicy == .all,
        device: settings.device, uploadedFirst: uploaded)
      switch step {
      case .skip: return
      case .updatePlaceholder:
        guard let known else { return assertionFailure("a placeholder step without a record") }
        try await updatePlaceholder(known, to: entry.revision)
        if let now = synced[entry.item]?.path, now != known.path {
          removeFoldersEmptied(from: known.path, now: now)
        }
        return
      case .placeholderOrDownload:
        var manifest = prefetched.manifests[entry.item]
        if manifest?.revision != entry.revision {
          manifest = try await client.manifest(
            item: entry.item, revision: entry.revision, since: nil)
        }
        if let manifest, keepsInCloud(manifest), manifest.path.hasPrefix("Documents/") {
          try await placePlaceholder(manifest)
          return
        }
        return try await downloadEntry(entry, local: nil, first: first, prefetched: prefetched)
      case .uploadFirst:
        guard let changed = local else { return assertionFailure("an upload without a file") }
        try await upload(changed, base: known)  // it becomes a conflict copy, or supersedes
        uploaded = true
        known = synced[entry.item]
        if PullDecision.isApplied(entry, known: known) { return }
        local = locate(entry.item, known: known)
      case .keepFile:
        needsPush = true
        return
      case .delete:
        if let local {
          // A coordinated deletion of its own; a save that raced it keeps the item here.
          guard try trashForDeletion(local) else { return }
          removeFoldersEmptied(from: local.path, now: nil)
        }
        try state.forget(entry.item)
        synced[entry.item] = nil
        return
      case .download:
        return try await downloadEntry(entry, local: local, first: first, prefetched: prefetched)
      }
    }
  }

  /// Downloads `entry`'s revision, on the synced record when the item is here (`local`), and
  /// tidies what it leaves: a stale placeholder of an item new here, folders a move emptied
  /// (`first` is the record before the entry was applied).
  private func downloadEntry(
    _ entry: ChangeEntry, local: LocalItem?, first known: SyncedItem?, prefetched: Prefetched
  ) async throws {
    let base = local == nil ? nil : synced[entry.item]
    let manifest = prefetched.manifests[entry.item]
    try await download(
      item: entry.item, revision: entry.revision, base: base,
      prefetched: base == nil && manifest?.revision == entry.revision ? manifest : nil,
      chunks: prefetched.chunks)
    if known == nil, let placed = synced[entry.item], !placed.isPlaceholder {
      removeStalePlaceholder(of: entry.item, at: placed.path)
    }
    if let old = local?.path ?? known?.path, let now = synced[entry.item]?.path, now != old {
      removeFoldersEmptied(from: old, now: now)
    }
  }

  /// The synced items by path, for ``LocalScanner/scan(root:known:)``.
  var syncedByPath: [String: SyncedRecord] {
    Dictionary(synced.values.map { ($0.path, $0) }) { first, _ in first }
  }

  /// The synced items in `scopes`, by path.
  func syncedRecords(in scopes: ChangedScopes) -> [String: SyncedRecord] {
    var found: [String: SyncedRecord] = [:]
    for record in synced.values where scopes.contains(record) {
      found[record.path] = found[record.path] ?? record
    }
    return found
  }

  /// Where the item `id` is in the folder now (by identity, so a local move is followed).
  func locate(_ id: String, known: SyncedItem?) -> LocalItem? {
    if known?.isPlaceholder == true { return nil }
    if let known, let item = LocalScanner.item(at: known.path, root: root), item.id == id {
      return item
    }
    return scan().first { $0.id == id }
  }
}
