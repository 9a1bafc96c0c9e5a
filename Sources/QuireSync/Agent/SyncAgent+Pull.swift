import Foundation
import Quire
import QuireSyncProtocol

extension SyncAgent {
  /// Applies every journal entry after the cursor, in order, moving the cursor after each.
  func pull() async throws {
    while true {
      let page = try await client.changes(since: state.cursor)
      for entry in page.entries {
        try await apply(entry)
        state.setCursor(entry.sequence)
      }
      if !page.more { return }
    }
  }

  private func apply(_ entry: ChangeEntry) async throws {
    guard !entry.conflict, entry.isInDocumentsScope else { return }
    let known = synced[entry.item]
    if let known, known.revision >= entry.revision { return }
    var local = locate(entry.item, known: known)
    if let changed = local, let known, !known.matches(changed) {
      try await upload(changed, base: known)  // it becomes a conflict copy, or supersedes
      if let again = synced[entry.item], again.revision >= entry.revision { return }
      local = locate(entry.item, known: synced[entry.item])
    }
    if entry.deleted {
      if let local {
        _ = try trash.trash(url(local.path))  // a coordinated deletion of its own
      }
      try state.forget(entry.item)
      synced[entry.item] = nil
      return
    }
    try await download(
      item: entry.item, revision: entry.revision, base: local == nil ? nil : synced[entry.item])
  }

  /// Where the item `id` is in the folder now (by identity, so a local move is followed).
  func locate(_ id: String, known: SyncedItem?) -> LocalItem? {
    if let known, let item = LocalScanner.item(at: known.path, root: folder), item.id == id {
      return item
    }
    return LocalScanner.scan(root: folder).first { $0.id == id }
  }

  /// Brings the item to `revision`: only what changed since `base` when the folder still holds
  /// `base`, else everything; moves it first if its path changed.
  func download(item id: String, revision: Int64, base: SyncedItem?) async throws {
    let manifest = try await client.manifest(item: id, revision: revision, since: base?.revision)
    guard manifest.path.hasPrefix("Documents/") else { return }
    let relative = String(manifest.path.dropFirst("Documents/".count))
    try SyncPath.check(relative, what: "item path")
    let incremental = base != nil && manifest.since == base?.revision
    state.setStatus(id, path: relative, state: "downloading")
    let folder = folder
    let onDisk =
      incremental
      ? LocalChunks(base: base!) {
        [relative, base!.path].lazy.map { folder.appendingPathComponent($0) }
          .first { ItemIdentity.stored(at: $0) == id }
      } : LocalChunks()
    let hashes = Set(manifest.change.upserted.flatMap { $0.chunks.map(\.hash) })
    let chunks = try await client.fetchChunks(hashes.filter { !onDisk.contains($0) })
    state.count(chunks.values.reduce(0) { $0 + $1.count }, in: "downloadedBytes")
    let writer = DownloadWriter(folder: folder, identity: id)
    let previous = synced[id]
    var members = incremental ? base!.members : [:]
    if let base, incremental, base.path != relative {
      try writer.move(from: base.path, to: relative)
    }
    let (placed, written) = try writer.write(
      manifest, to: relative,
      chunk: { hash in
        if let fetched = chunks[hash] { return fetched }
        if let held = try onDisk.bytes(of: hash) { return held }
        throw SyncError(
          .internalError, "Chunk \(hash) of “\(relative)” was neither fetched nor held.")
      }, incremental: incremental)
    for path in manifest.change.removed { members[path] = nil }
    for member in manifest.change.upserted {
      guard let local = written[member.path] else { continue }
      members[member.path] = SyncedItem.Member(
        local: local, hash: member.hash, chunks: member.chunks)
    }
    let record = SyncedItem(
      id: id, path: placed, kind: manifest.kind, revision: revision, members: members)
    try state.record(
      record, changed: manifest.change.upserted.map(\.path),
      removed: incremental ? manifest.change.removed : Array((previous?.members ?? [:]).keys))
    synced[id] = record
    state.setStatus(id, path: placed, state: nil)
  }
}
