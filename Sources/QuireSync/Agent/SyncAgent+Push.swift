import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

extension SyncAgent {
  /// The push the worker makes when asked: it scans the folder and uploads every item that
  /// differs from the synced tree: new items, changed members, renames and moves (metadata
  /// only), and deletions. Changed items go in batches: one question about chunks, one upload
  /// and one commit request per batch.
  ///
  /// The agent looks only where its monitor said the folder changed (``changedScopes``), and
  /// at what the last push could not sync; its cost then follows the change, not the size of
  /// the drive or of the shared folder. Without those places (at start, after an overflow, a
  /// failed step), and when they cannot say (``pushMayLookInPlaces``), it scans the whole
  /// folder.
  func pushRequested() async throws {
    var scopes = pushMayLookInPlaces ? changedScopes : nil
    changedScopes = ChangedScopes()
    if scopes != nil { for path in failedPaths { scopes?.insert(path) } }
    try await pushLocalChanges(in: scopes)
  }

  /// Scans `scopes` of the folder (all of it when nil) and uploads every item there that
  /// differs from the synced tree (see ``pushRequested()``).
  func pushLocalChanges(in scopes: ChangedScopes? = nil) async throws {
    failedPaths = []
    // The synced records in the scopes, found in one pass over the tree: the push's only
    // look at all of it.
    let inScope = scopes.map { syncedRecords(in: $0) }
    let syncedByPath = inScope ?? syncedByPath
    let generation = localGeneration
    var items = scopes.map { scan(in: $0, known: syncedByPath) } ?? scan()
    if let share, !share.isFolder, !items.contains(where: { $0.id == share.item }),
      let moved = await followMovedItem()
    {
      items = [moved]  // the participant moved it to another folder of the drive
    }
    if let share, share.isFolder, !synced.isEmpty,
      (try? Sys.exists(url(share.name).path)) == false, await followMovedFolder()
    {
      items = scan()  // the participant moved the shared folder: not a deletion of it all
    }
    let facts = await pushFacts(items, scopes: scopes)
    let decision = PushDecision(
      items: items, record: { synced.record($0) }, byPath: syncedByPath, facts: facts)
    var changed: [LocalItem] = []
    // The scan's items with the identities this push gave them, for ``scannedUnsynced``.
    var scannedNow: [LocalItem] = []
    for (var item, verdict) in zip(items, decision.verdicts) {
      switch verdict.identity {
      case .kept: break
      case .new:
        try ItemIdentity.assign(nil, to: url(item.path))
        item.id = try ItemIdentity.of(url(item.path))
      case .adopted(let id):
        try ItemIdentity.assign(id, to: url(item.path))
        item.id = id
      }
      scannedNow.append(item)
      switch verdict.disposition {
      case .othersToSync, .unchanged: break
      case .waiting:
        // A program's write to it is being put back: sent once it is (see
        // ``holdForPutBack(_:count:)``), not what the download left meanwhile.
        state.setStatus(item.id, path: item.path, state: .waiting, error: nil)
      case .changed: changed.append(item)
      }
    }
    let role = PushRole(share)
    var uploads: [LocalItem] = []
    for item in changed {
      switch role.step(for: item, known: synced.record(item.id)) {
      case .upload: uploads.append(item)
      case .restoreName:
        // Only renamed: the owner's name comes back, nothing to keep aside.
        guard var renamed = synced[item.id] else { continue }
        renamed.path = item.path
        try await download(item: renamed.id, revision: renamed.revision, base: renamed)
      case .keepAside: try await keepAside(item)
      }
    }
    changed = uploads
    // A whole folder renamed or moved is one commit first (its placeholders, which the scan
    // does not list, move with it rather than being taken for deleted).
    // (An item edited as well as moved counts: its edit is committed next, on its old base,
    // and the server rebases it past the move.)
    let relocated = changed.filter { item in
      synced.record(item.id).map { $0.path != item.path } ?? false
    }
    // An item in the cloud only is there while its placeholder is (deleting that deletes the
    // item): one `stat` each, and again after the moves only for those not found.
    let placeholders =
      inScope.map { $0.values.filter(\.isPlaceholder) } ?? synced.values.filter(\.isPlaceholder)
    let missing = placeholders.filter { !placeholderExists($0) }.map(\.item)
    let (left, found) = try await commitFolderMoves(relocated, missingPlaceholders: missing)
    // A placeholder found elsewhere is not deleted, even if its move was not recorded (the
    // server merged it, or named it otherwise): the pull brings it as the server has it.
    let gone = Set(missing.map(\.id)).subtracting(found)
    // Deletions next: a new document at a deleted one's path (a copy made over it, a file
    // that lost its identity) then takes that name, not "Name 2".
    // (Records as they are now: the folder moves above may have moved some.)
    let unseen =
      inScope.map {
        decision.unseen(among: $0.values.compactMap { synced.record($0.id) }, gone: gone)
      }
      ?? decision.unseen(among: synced.values, gone: gone)
    let movedMeanwhile = stillHere(Array(unseen.keys))
    for (id, known) in unseen where !movedMeanwhile.contains(id) {
      if role.uploadsDeletions {
        try await uploadDeletion(known.item)
      } else {
        // A participant does not delete the owner's item: it comes back.
        try await download(item: known.id, revision: known.revision, base: nil)
      }
    }
    // Other moves open no file: they go in batches as large as the server takes (a shared
    // folder's share follows a rename only when one batch empties it).
    let (moved, edited) = PushDecision.split(
      changed: changed, left: left, record: { synced.record($0) })
    for start in stride(from: 0, to: moved.count, by: CommitBatch.maximumCount) {
      try await uploadBatch(
        Array(moved[start..<min(start + CommitBatch.maximumCount, moved.count)]))
    }
    for start in stride(from: 0, to: edited.count, by: Self.batchSize) {
      try await uploadBatch(Array(edited[start..<min(start + Self.batchSize, edited.count)]))
    }
    // What the scan found and this push did not sync stands for the folder until it changes.
    // (A share's agent may have looked in one place only: it scans again.) A push that looked
    // in some places only keeps what the last scan found elsewhere: every change since that
    // scan is in the places this push or one before it looked.
    if share == nil {
      let found = Dictionary(
        scannedNow.filter { !synced.contains($0.id) }.map { ($0.id, $0) }
      ) { first, _ in first }
      if let scopes {
        if let last = scannedUnsynced {
          let kept = last.items.filter { !scopes.contains($0.value.path) }
          scannedUnsynced = (generation, kept.merging(found) { _, new in new })
        }
      } else {
        scannedUnsynced = (generation, found)
      }
    }
  }

  /// Which of the synced items `unseen` by the scan a second scan finds. A scan lists one
  /// folder after another, so a document renamed from a folder not yet listed into one already
  /// listed is in neither listing: it is not deleted, and the next push uploads its move. (The
  /// second scan narrows that window; a deletion uploaded all the same is undone by ``pull()``,
  /// which keeps a file whose deletion this device has no record of.)
  /// This second look is at the whole folder, even after a push that looked only where the
  /// monitor said: a document moved into a folder just made is heard leaving before it is
  /// heard arriving (the new folder's watch lists it once it holds), so its destination may be
  /// in no scope yet. A deletion then costs a whole scan; an edit, a rename or a move whose
  /// two ends are heard together does not.
  func stillHere(_ unseen: [String]) -> Set<String> {
    guard !unseen.isEmpty else { return [] }
    let found = Set(scan().map(\.id)).intersection(unseen)
    if !found.isEmpty { needsPush = true }
    return found
  }

  /// Items per commit batch: large enough that a first sync of thousands of small documents is
  /// a few requests, small enough that a batch's snapshots stay few open files.
  static var batchSize: Int { 256 }

  /// Uploads what changed in `item` since `base` (everything for a new item) and commits it.
  func upload(_ item: LocalItem, base: SyncedItem?) async throws {
    if PushRole(share) == .readOnly { return try await keepAside(item) }
    state.setStatus(item.id, path: item.path, state: .uploading)
    let prepared = try prepare(item, base: base)
    if prepared.isUnchanged, let base {
      // Read again only to be sure: recorded with its new doubt, nothing sent.
      let record = prepared.record(revision: base.revision)
      try state.record([(record, prepared.snapshots.map(\.path), [])], clearingStatus: true)
      synced[item.id] = record
      return
    }
    let sources = prepared.sources
    let held = prepared.held
    try await send(
      sources.keys.filter { !held.contains($0) }, from: sources,
      deltas: base.map { [($0, sources)] } ?? [])
    let answer = try await commit(
      prepared.request, base: base, offering: sources, skipped: !held.isEmpty)
    try await finish(prepared, answer: answer)
  }

  /// Reads `item`'s changed members (inside a coordinated read) and builds its commit.
  func prepare(_ item: LocalItem, base: SyncedItem?) throws -> PreparedUpload {
    // Before the read: a stat not older than this may hide a write in the same tick.
    let now = fileSystemNow()
    return try FileCoordinator().coordinate(readingItemAt: url(item.path)) { url in
      try prepare(item, base: base, at: url, checkedAt: now)
    }
  }

  /// Reads every item of a batch inside one coordinated read: one wait for the locks, and one
  /// look at the presenters of the folders the items share, instead of one per item (in a
  /// first sync of 10 000 small documents, the per-item coordination was the sender's largest
  /// cost). Gives, per item in order, its upload or why it could not be read.
  func prepare(_ items: [LocalItem]) -> [Result<PreparedUpload, any Error>] {
    let now = fileSystemNow()
    do {
      return try FileCoordinator().coordinate(readingItemsAt: items.map { url($0.path) }) {
        urls in
        zip(items, urls).map { item, url in
          Result { try prepare(item, base: synced[item.id], at: url, checkedAt: now) }
        }
      }
    } catch {
      return items.map { _ in .failure(error) }
    }
  }

  /// Builds `item`'s upload from what is at `url`, inside a coordinated read of it.
  private func prepare(
    _ item: LocalItem, base: SyncedItem?, at url: URL, checkedAt now: Int64
  ) throws -> PreparedUpload {
    let (current, snapshots) = try readChanges(of: item, base: base, at: url)
    let removed =
      (base?.members.keys).map { Set($0).subtracting(current.members.keys).sorted() } ?? []
    return PreparedUpload(
      item: current, base: base, snapshots: snapshots, removed: removed, checkedAt: now)
  }

  /// Records a committed upload as synced. If the server merged it with changes made meanwhile,
  /// the merged revision is brought here (only what differs from this device's copy); what did
  /// not merge is kept on the server as a conflict revision, never lost.
  func finish(_ prepared: PreparedUpload, answer: CommitResponse) async throws {
    let item = prepared.item
    guard answer.status == .current else {
      // The copy on disk is what was sent: its record on the base's revision is the base of
      // the download, so this device's own changes are read back from disk, not fetched.
      let merged = answer.status == .merged
      let sent = prepared.request.base.map { prepared.record(revision: $0) }
      try await download(
        item: item.id, revision: merged ? answer.revision : answer.current,
        base: merged ? sent : nil,
        // Sent with no base (no record here) and merged: what was sent is in the merge.
        sent: merged && sent == nil ? prepared.record(revision: answer.revision) : nil)
      return
    }
    let record = prepared.record(revision: answer.revision)
    try state.record(record, changed: prepared.snapshots.map(\.path), removed: prepared.removed)
    synced[item.id] = record
    state.setStatus(item.id, path: item.path, state: nil)
    if let path = answer.path, path != prepared.request.path {
      // Another item had the name: the server named this one "Name 2", and so must the folder.
      try await download(item: item.id, revision: answer.revision, base: record)
    }
  }

  /// Notes a failed item: `waiting` if its writer is still at it (the monitor asks for another
  /// push when it is done), `error` otherwise; a server that is away or busy is thrown on, to
  /// retry everything after a pause.
  func noteItemFailure(_ error: any Error, item: LocalItem) throws {
    guard let error = error as? SyncError,
      error.code != .unavailable && error.code != .rateLimited
    else { throw error }
    failedPaths.append(item.path)  // the next push looks at it again
    if error.code == .changedWhileSyncing {
      state.setStatus(item.id, path: item.path, state: .waiting, error: nil)
    } else {
      state.setStatus(item.id, path: item.path, state: .error, error: error)
    }
  }

  /// Commits `request`, made on `base` (whose long chunk lists are sent as edits). If the server
  /// lacks a chunk this device `skipped` offering because the synced revision had it (the
  /// server dropped it since), every chunk is offered and the commit tried once more.
  func commit(
    _ request: CommitRequest, base: SyncedItem?,
    offering sources: [ContentHash: (snapshot: MemberSnapshot, index: Int)],
    skipped: Bool
  ) async throws -> CommitResponse {
    let lists = base?.members.mapValues(\.chunks) ?? [:]
    do {
      return try await client.commit(stamped(request), editing: lists)
    } catch {
      guard error.code == .missingChunks && skipped else { throw error }
      try await send(Array(sources.keys), from: sources)
      return try await client.commit(stamped(request), editing: lists)
    }
  }

  /// Uploads those of `hashes` the server lacks, read back from the members they came from;
  /// those of an item in `deltas` that replaced a chunk of its base go as deltas of it where
  /// they can (``sendDeltas(_:items:)``).
  func send(
    _ hashes: [ContentHash], from sources: PreparedUpload.Sources,
    deltas items: [(base: SyncedItem, sources: PreparedUpload.Sources)] = []
  ) async throws {
    var missing = try await client.missingChunks(hashes)
    if share == nil, !items.isEmpty, !missing.isEmpty {
      let stored = await sendDeltas(missing, items: items)
      missing.removeAll { stored.contains($0) }
    }
    let sent: Int
    do {
      sent = try await client.upload(missing) { hash throws(SyncError) in
        guard let source = sources[hash] else {
          throw SyncError(
            .internalError, "The server asked for chunk \(hash), which was not offered.")
        }
        return try source.snapshot.uncheckedBytes(ofChunk: source.index)
      }
    } catch {
      // Refused for bytes that no longer hash to what was read: which member changed in place
      // meanwhile, if one did.
      throw MemberSnapshot.changedWhileSent(
        error, sources: missing.compactMap { sources[$0] }.map { ($0.snapshot, $0.index) })
    }
    state.count(sent, in: "uploadedBytes")
  }

  /// Lists `item`'s members and opens and chunks those changed since `base`, all inside one
  /// coordinated read, so what is uploaded is one state of the package, never a torn one.
  ///
  /// The scan that found the change ran outside the read and may have seen a save half done
  /// (one member new, another not yet): taking its list would upload the new member beside the
  /// base's old one. So a package's members are listed again inside the read.
  private func readChanges(
    of item: LocalItem, base: SyncedItem?, at url: URL
  ) throws -> (LocalItem, [MemberSnapshot]) {
    do {
      var current = item
      if item.kind == .package {
        guard let info = try? Sys.status(url.path), LocalScanner.isDirectory(info) else {
          throw SyncError(
            .changedWhileSyncing,
            "“\(url.path)” was moved or removed while it was read to upload it; the next scan finds where it went."
          )
        }
        current.members = [:]
        LocalScanner.packageMembers(url.path, relative: "", into: &current.members)
      }
      let changed = current.members.filter { base?.members[$0.key]?.proves($0.value) != true }
        .keys.sorted()
      let snapshots = try changed.map { path in
        try MemberSnapshot(
          path: path, file: path.isEmpty ? url.path : url.appendingPathComponent(path).path)
      }
      // What is sent and recorded is the stat of the bytes read, not the scan's.
      for snapshot in snapshots { current.members[snapshot.path] = snapshot.local }
      // The scan may have named a file a copier had made and not yet marked: `cp -a` writes
      // the original's identity once the bytes are in, while it still holds the file open.
      // Read here, with no writer left (the snapshots' check), a flat file's identity is its
      // own. (A package folder has no writer to wait for: a copy still being made can pass.)
      guard (try? ItemIdentity.of(url, creating: false)) == item.id else {
        throw SyncError(
          .changedWhileSyncing,
          "“\(url.path)” took another identity, or went away, while it was read to upload it; the next scan reads it again."
        )
      }
      return (current, snapshots)
    }
  }

  /// The item is gone from the folder: commit its deletion. If it changed on the server
  /// meanwhile, modification beats deletion: the current revision comes back.
  private func uploadDeletion(_ known: SyncedItem) async throws {
    let answer = try await client.commit(
      stamped(
        CommitRequest(
          commit: UUID().uuidString, item: known.id, kind: known.kind,
          path: "Documents/" + known.path, base: known.revision, deleted: true,
          change: ManifestChange())))
    try state.forget(known.id)
    synced[known.id] = nil
    if answer.status == .conflict {
      try await download(item: known.id, revision: answer.current, base: nil)
    }
  }
}
