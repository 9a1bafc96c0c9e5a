import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

/// Documents kept in the cloud (``DownloadPolicy/onDemand(downloadingUnder:)``): each is a
/// ``Quire/CloudPlaceholder`` in the folder and a synced record with the server's members and no
/// local stat, until it is downloaded; a change or move made elsewhere rewrites the placeholder,
/// a deletion removes it.
extension SyncAgent {
  /// Whether the new item `manifest` describes (whole, not since a base) stays in the cloud.
  func keepsInCloud(_ manifest: RevisionManifest) -> Bool {
    Self.keepsInCloud(manifest, policy: downloadPolicy)
  }

  /// Whether the new item `manifest` describes stays in the cloud under `policy`.
  static func keepsInCloud(_ manifest: RevisionManifest, policy: DownloadPolicy) -> Bool {
    manifest.since == nil && !manifest.deleted
      && policy.keepsInCloud(size: manifest.change.upserted.reduce(0) { $0 + $1.size })
  }

  /// Brings the placeholder item `known` to `revision`: rewrites its placeholder (at its new
  /// path, if it moved) and its record; a deletion removes both.
  func updatePlaceholder(_ known: SyncedItem, to revision: Int64) async throws {
    let manifest = try await client.manifest(
      item: known.id, revision: revision, since: known.revision)
    guard manifest.path.hasPrefix("Documents/") else { return }
    if manifest.deleted {
      removePlaceholder(of: known)
      try state.forget(known.id)
      synced[known.id] = nil
      return
    }
    var members = manifest.since == known.revision ? known.members : [:]
    for path in manifest.change.removed { members[path] = nil }
    for member in manifest.change.upserted { members[member.path] = Self.cloudMember(member) }
    try await placePlaceholder(
      id: known.id, manifest: manifest, members: members, replacing: known)
  }

  /// Writes the placeholder of a new item `manifest` describes whole, and records it.
  func placePlaceholder(_ manifest: RevisionManifest) async throws {
    var members: [String: SyncedItem.Member] = [:]
    for member in manifest.change.upserted { members[member.path] = Self.cloudMember(member) }
    try await placePlaceholder(
      id: manifest.item, manifest: manifest, members: members, replacing: nil)
  }

  /// The thumbnail a package carries (`QuickLook/Thumbnail.png` or `.svg`, up to 256 KiB), to
  /// promise in its placeholder: fetched if this revision changed it, else the one the
  /// placeholder at `previous` already promised.
  private func promisedThumbnail(
    _ manifest: RevisionManifest, members: [String: SyncedItem.Member], previous: URL?
  ) async throws -> Thumbnail? {
    guard manifest.kind == .package else { return nil }
    for name in Self.thumbnailMembers(members) {
      guard let member = members[name] else { continue }
      if !manifest.change.upserted.contains(where: { $0.path == name }),
        let previous, let kept = try? CloudPlaceholder.read(at: previous).thumbnail
      {
        return kept
      }
      let fetched = try await client.fetchChunks(member.chunks.map(\.hash))
      var bytes: [UInt8] = []
      for chunk in member.chunks {
        guard let part = fetched[chunk.hash] else { return nil }
        bytes += part
      }
      return name.hasSuffix("png")
        ? .png(Data(bytes)) : .svg(String(decoding: bytes, as: UTF8.self))
    }
    return nil
  }

  /// The members of a package that a placeholder promises as its thumbnail, best first:
  /// `QuickLook/Thumbnail.png` or `.svg`, up to 256 KiB.
  static func thumbnailMembers(_ members: [String: SyncedItem.Member]) -> [String] {
    ["QuickLook/Thumbnail.png", "QuickLook/Thumbnail.svg"].filter {
      (members[$0]?.size ?? .max) <= 256 << 10
    }
  }

  /// The placeholder of the item `id` at `manifest`'s revision, for a document called `name`.
  static func placeholder(
    of id: String, manifest: RevisionManifest, members: [String: SyncedItem.Member],
    name: String, thumbnail: Thumbnail?
  ) -> CloudPlaceholder {
    let modified = manifest.change.upserted.map(\.safeModified).max() ?? 0
    return CloudPlaceholder(
      name: name, isPackage: manifest.kind == .package,
      size: Int64(members.values.reduce(0) { $0 + $1.size }), identity: id,
      revision: manifest.revision,
      modified: modified > 0 ? Date(timeIntervalSince1970: modified) : Date(),
      thumbnail: thumbnail)
  }

  private func placePlaceholder(
    id: String, manifest: RevisionManifest, members: [String: SyncedItem.Member],
    replacing previous: SyncedItem?
  ) async throws {
    let relative = String(manifest.path.dropFirst("Documents/".count))
    try SyncPath.check(relative, what: "item path")
    let document = url(relative)
    try AgentFolders.make(document.deletingLastPathComponent().path)
    let thumbnail = try await promisedThumbnail(
      manifest, members: members,
      previous: previous.map { CloudPlaceholder.url(for: url($0.path)) })
    let placeholder = Self.placeholder(
      of: id, manifest: manifest, members: members, name: document.lastPathComponent,
      thumbnail: thumbnail)
    try placeholder.write(for: document)
    if let previous, previous.path != relative { removePlaceholder(of: previous) }
    let record = SyncedItem(
      id: id, path: relative, kind: manifest.kind, revision: manifest.revision,
      members: members, isPlaceholder: true)
    try state.record(
      record, changed: Array(members.keys),
      removed: (previous?.members.keys).map { Set($0).subtracting(members.keys).sorted() } ?? [])
    synced[id] = record
    state.setStatus(id, path: relative, state: nil)
  }

  /// Downloads the placeholder item at `relative` in place of its placeholder (nothing if it is
  /// already here).
  ///
  /// - Throws: ``SyncError`` `notFound` if the folder has no such item.
  func downloadPlaceholder(at relative: String, progress: DownloadProgress? = nil) async throws {
    guard let known = synced.values.first(where: { $0.path == relative })?.item else {
      if (try? Sys.exists(url(relative).path)) == true { return }
      throw SyncError(.notFound, "“\(relative)” is not an item of the synced folder.")
    }
    guard known.isPlaceholder else { return }
    do {
      let policy = downloadPolicy
      try await download(
        item: known.id, revision: known.revision, base: nil, progress: progress,
        keepsInCloud: { policy.keepsMemberInCloud($0.path, size: $0.size) })
    } catch {
      state.setStatus(
        known.id, path: known.path, state: .downloadError,
        error: error as? SyncError ?? SyncError(.unavailable, "\(error)"))
      throw error
    }
    if let now = synced[known.id], !now.isPlaceholder { removePlaceholder(of: known) }
  }

  /// Removes the local copy of the item at `relative`, leaving its placeholder.
  ///
  /// - Throws: ``SyncError`` `changedWhileSyncing` while it has changes not yet uploaded or is
  ///   open in an app (whose unsaved edits would be lost), `notFound` if there is no such item.
  func evict(at relative: String) async throws {
    guard let known = synced.values.first(where: { $0.path == relative })?.item else {
      throw SyncError(.notFound, "“\(relative)” is not a synced item of the folder.")
    }
    if known.isPlaceholder { return }
    let document = url(relative)
    guard let local = LocalScanner.item(at: relative, root: root), known.matches(local) else {
      throw SyncError(
        .changedWhileSyncing,
        "“\(document.path)” has changes not uploaded yet; wait until it is synced, then remove its download."
      )
    }
    if FileCoordinator.isPresented(document) {
      throw SyncError(
        .changedWhileSyncing,
        "“\(document.path)” is open in an app; close it, then remove its download.")
    }
    var cloud = known
    cloud.isPlaceholder = true
    for (path, member) in cloud.members {
      cloud.members[path]?.local = LocalItem.Member(
        size: member.size, mode: member.local.mode, modifiedNanoseconds: 0)
    }
    try FileCoordinator().coordinate(writingItemAt: document, options: .forDeleting) { url in
      let modified = known.members.values.map(\.local.modifiedNanoseconds).max() ?? 0
      var thumbnail: Thumbnail?
      for name in ["Thumbnail.png", "Thumbnail.svg"] where known.kind == .package {
        let file = url.appendingPathComponent("QuickLook/" + name)
        guard (known.members["QuickLook/" + name]?.size ?? .max) <= 256 << 10,
          let data = try? Sys.contents(of: file.path)
        else { continue }
        thumbnail = name.hasSuffix("png") ? .png(data) : .svg(String(decoding: data, as: UTF8.self))
        break
      }
      try CloudPlaceholder(
        name: url.lastPathComponent, isPackage: known.kind == .package,
        size: Int64(known.size), identity: known.id,
        revision: known.revision,
        modified: Date(timeIntervalSince1970: Double(modified) / 1_000_000_000),
        thumbnail: thumbnail
      ).write(for: url)
      try Sys.removeTree(url.path)
    }
    try state.record(cloud, changed: Array(cloud.members.keys), removed: [])
    synced[known.id] = cloud
  }

  /// Whether the placeholder item `known` is still in the folder (its placeholder file is). A
  /// look that fails says it is: only a placeholder seen gone is taken for moved or deleted.
  func placeholderExists(_ known: SyncedRecord) -> Bool {
    (try? Sys.exists(CloudPlaceholder.url(for: url(known.path)).path)) != false
  }

  /// Removes the placeholder of `id` beside its document, now downloaded at `relative`, if
  /// one is there. A pull killed before it recorded its placeholders leaves them hidden and
  /// unknown; a later pull that downloads the documents instead (the policy changed meanwhile)
  /// must not leave an "in the cloud" entry beside each that cannot be opened. A placeholder
  /// of another item is left alone. One `stat` per document when there is none.
  func removeStalePlaceholder(of id: String, at relative: String) {
    let placeholder = CloudPlaceholder.url(for: url(relative))
    guard (try? Sys.status(placeholder.path)) != nil,
      (try? CloudPlaceholder.read(at: placeholder))?.identity == id
    else { return }
    try? Sys.unlink(placeholder.path)
  }

  private func removePlaceholder(of item: SyncedItem) {
    try? Sys.unlink(CloudPlaceholder.url(for: url(item.path)).path)
  }

  /// A member known only from the server: its size and mode, no local time.
  static func cloudMember(_ member: ManifestMember) -> SyncedItem.Member {
    SyncedItem.Member(
      local: LocalItem.Member(size: member.size, mode: member.mode, modifiedNanoseconds: 0),
      hash: member.hash, chunks: member.chunks)
  }
}
