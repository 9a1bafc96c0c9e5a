import Foundation
import Quire
import QuireSyncProtocol

extension SyncAgent {
  /// Scans the folder and uploads every item that differs from the synced tree: new items,
  /// changed members, renames and moves (metadata only), and deletions.
  func pushLocalChanges() async throws {
    let items = LocalScanner.scan(root: folder)
    let scanned = Set(items.map(\.id))
    let syncedByPath = Dictionary(synced.values.map { ($0.path, $0) }) { first, _ in first }
    var seen = Set<String>()
    for var item in items {
      if seen.contains(item.id) {
        // A copy that kept the original's identity (cp -a, a file manager's duplicate).
        try ItemIdentity.assign(nil, to: url(item.path))
        item.id = try ItemIdentity.of(url(item.path))
      } else if synced[item.id] == nil, let replaced = syncedByPath[item.path],
        !scanned.contains(replaced.id)
      {
        // Another program's safe-save: a new file renamed over the synced one, without its
        // identity. It is the same document, changed.
        try ItemIdentity.assign(replaced.id, to: url(item.path))
        item.id = replaced.id
      }
      seen.insert(item.id)
      if let known = synced[item.id], known.matches(item) { continue }
      do {
        try await upload(item, base: synced[item.id])
      } catch let error as SyncError where error.code != .unavailable {
        state.setStatus(item.id, path: item.path, state: "error", error: error.message)
      }
    }
    for (id, known) in synced where !seen.contains(id) {
      try await uploadDeletion(known)
    }
  }

  /// Uploads what changed in `item` since `base` (everything for a new item) and commits it.
  func upload(_ item: LocalItem, base: SyncedItem?) async throws {
    state.setStatus(item.id, path: item.path, state: "uploading")
    let changed = item.members.keys.filter { base?.members[$0]?.local != item.members[$0] }.sorted()
    let removed = (base?.members.keys).map { Set($0).subtracting(item.members.keys).sorted() } ?? []
    let contents = try readMembers(changed, of: item)
    var uploads: [ContentHash: [UInt8]] = [:]
    for (_, chunked) in contents { for (hash, bytes) in chunked.uploads { uploads[hash] = bytes } }
    let missing = try await client.missingChunks(Array(uploads.keys))
    try await client.upload(missing.map { ($0, uploads[$0]!) })
    var upserted: [ManifestMember] = []
    var members = base?.members ?? [:]
    for path in removed { members[path] = nil }
    for (path, chunked) in contents {
      let local = item.members[path]!
      upserted.append(
        chunked.member(
          path: path, mode: local.mode, modified: Double(local.modifiedNanoseconds) / 1e9))
      members[path] = SyncedItem.Member(local: local, hash: chunked.hash, chunks: chunked.chunks)
    }
    let answer = try await client.commit(
      CommitRequest(
        commit: UUID().uuidString, item: item.id, kind: item.kind, path: "Documents/" + item.path,
        base: base?.revision, change: ManifestChange(upserted: upserted, removed: removed)))
    guard answer.status == .current else {
      try await keepBoth(item, current: answer.current)
      return
    }
    let record = SyncedItem(
      id: item.id, path: item.path, kind: item.kind, revision: answer.revision, members: members)
    try state.record(record, changed: contents.map(\.path), removed: removed)
    synced[item.id] = record
    state.setStatus(item.id, path: item.path, state: nil)
  }

  /// Reads the members `paths` of `item` inside one coordinated read (no torn package), and cuts
  /// them into chunks.
  private func readMembers(_ paths: [String], of item: LocalItem) throws -> [(
    path: String, chunked: ChunkedContents
  )] {
    guard !paths.isEmpty else { return [] }
    let root = url(item.path)
    return try FileCoordinator().coordinate(readingItemAt: root) { url in
      try paths.map { path in
        let file = path.isEmpty ? url : url.appendingPathComponent(path)
        return (path, ChunkedContents([UInt8](try Data(contentsOf: file))))
      }
    }
  }

  /// The item is gone from the folder: commit its deletion. If it changed on the server
  /// meanwhile, modification beats deletion: the current revision comes back.
  private func uploadDeletion(_ known: SyncedItem) async throws {
    let answer = try await client.commit(
      CommitRequest(
        commit: UUID().uuidString, item: known.id, kind: known.kind,
        path: "Documents/" + known.path, base: known.revision, deleted: true,
        change: ManifestChange()))
    try state.forget(known.id)
    synced[known.id] = nil
    if answer.status == .conflict {
      try await download(item: known.id, revision: answer.current, base: nil)
    }
  }

  /// The server kept this device's edit as a conflict revision: the local version moves to a
  /// copy beside it (a new item, uploaded next), and the current revision takes its place.
  private func keepBoth(_ item: LocalItem, current: Int64) async throws {
    let original = url(item.path)
    let name = original.deletingPathExtension().lastPathComponent
    let ext = original.pathExtension
    var copy: URL
    var index = 1
    repeat {
      let suffix = index == 1 ? "" : " \(index)"
      copy = original.deletingLastPathComponent().appendingPathComponent(
        "\(name) (conflict on \(settings.device)\(suffix))" + (ext.isEmpty ? "" : ".\(ext)"))
      index += 1
    } while FileManager.default.fileExists(atPath: copy.path)
    try FileCoordinator().coordinate(
      writingItemAt: original, options: .forMoving, writingItemAt: copy, options: .forReplacing
    ) { from, to in
      try FileManager.default.moveItem(at: from, to: to)
      try ItemIdentity.assign(nil, to: to)
    }
    try await download(item: item.id, revision: current, base: nil)
  }
}
