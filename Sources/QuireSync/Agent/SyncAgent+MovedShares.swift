import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

/// A shared document or folder the participant moved out of "Shared with me" stays shared, as
/// in iCloud Drive: its share's agent follows it by identity into whatever folder of the drive
/// it went to, and the drive's agent leaves it alone there (a copy that kept the identity is a
/// new document of the account's own). The share's agent keeps the owner's name for it; only
/// the folder it is in is the participant's choice. A shared folder moved away is never taken
/// for the deletion of its documents.
///
/// Cost: nothing while the share stays where it is (its agent looks at one path, or its
/// folder); a scan of the drive once when it has moved and its agent finds it gone.
extension SyncAgent {
  /// The meta key of a share's state holding the folder its document is in, relative to the
  /// drive ("" for the drive itself); absent while it is in ``sharedFolderName``.
  static let shareRootKey = "root"

  /// Where the agent of `share` finds its item: the folder the participant moved it to, as
  /// its state recorded, else ``sharedFolderName``.
  static func shareRoot(_ share: ShareInfo, drive: URL, state: SyncState) -> URL {
    guard let relative = state.value(Self.shareRootKey),
      (try? SyncPath.check(relative.isEmpty ? "x" : relative + "/x", what: "folder")) != nil
    else { return drive.appendingPathComponent(sharedFolderName) }
    return relative.isEmpty ? drive : drive.appendingPathComponent(relative)
  }

  /// The state files of `stateFile`'s shares (`{name}-share-{id}.sqlite`, beside it).
  static func shareStateFiles(of stateFile: URL) -> [URL] {
    let folder = stateFile.deletingLastPathComponent()
    let prefix = stateFile.deletingPathExtension().lastPathComponent + "-share-"
    let names = (try? Sys.names(in: folder.path)) ?? []
    return names.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".sqlite") }.sorted().map {
      folder.appendingPathComponent($0)
    }
  }

  /// The drive's agent, before its first scan: where each shared document is, from the shares'
  /// states, so that one moved anywhere is not taken for a new document of the account's own
  /// before the shares' agents run.
  func loadShareLocations() {
    for file in Self.shareStateFiles(of: stateFile) {
      guard let state = try? SyncState(file: file), let json = state.value("share"),
        let info = try? JSONDecoder().decode(ShareInfo.self, from: Data(json.utf8))
      else { continue }
      let items = (try? state.syncedItems()) ?? [:]
      let root = Self.shareRoot(info, drive: folder, state: state)
      if info.isFolder {
        shareLocations[Self.shareKey(info.id)] = Self.relative(
          root.appendingPathComponent(info.name), to: folder)
        for id in items.keys { folderShareItems[id] = Self.shareKey(info.id) }
      } else {
        let path = items[info.item]?.path ?? info.name
        shareLocations[info.item] = Self.relative(root.appendingPathComponent(path), to: folder)
        sharedItems.insert(info.item)
      }
    }
  }

  /// The key of a folder share's agent and location in ``shareAgents`` and ``shareLocations``
  /// (a document share's is its item's identity, which has no colon).
  static func shareKey(_ share: String) -> String { "share:" + share }

  /// A share's agent: its document's (or folder's) path relative to the drive, where it is now.
  func itemLocation() -> String? {
    guard let share else { return nil }
    let path = share.isFolder ? share.name : synced.record(share.item)?.path ?? share.name
    return Self.relative(root.appendingPathComponent(path), to: drive)
  }

  /// A folder share's agent: whether it syncs the item `id`.
  func syncs(_ id: String) -> Bool { synced.contains(id) }

  /// A folder share's agent whose folder is gone from its root: asks the drive's agent where
  /// one of its documents is now and, if the folder went elsewhere in the drive, follows it
  /// there (renamed back to the owner's name if the participant renamed it, and that name is
  /// free). True if it did; false if the folder is nowhere (deleted).
  func followMovedFolder() async -> Bool {
    guard let share, share.isFolder, let parent else { return false }
    let probes = MovedFolderLocation.probes(synced.values, path: \.path, folder: share.name)
    for (known, inner) in probes {
      guard let found = await parent.sharedDocumentPath(known.id),
        let now = MovedFolderLocation.folder(inner: inner, foundAt: found)
      else { continue }
      let moved = drive.appendingPathComponent(now)
      let newRoot = moved.deletingLastPathComponent()
      if moved.lastPathComponent != share.name {
        let target = newRoot.appendingPathComponent(share.name)
        guard (try? Sys.move(moved.path, to: target.path)) != nil else { return false }
      }
      root = newRoot
      let relative = Self.relative(newRoot, to: drive)
      state.setValue(relative == Self.sharedFolderName ? nil : relative, for: Self.shareRootKey)
      await parent.sharedDocument(
        Self.shareKey(share.id), isAt: Self.relative(url(share.name), to: drive), agent: self)
      return true
    }
    return false
  }

  /// A share's agent whose document is not where it was: asks the drive's agent where in the
  /// drive it is now and, if it is anywhere, follows it there (its root becomes that folder,
  /// recorded in its state). Returns the document as found, or nil if it is nowhere (deleted).
  func followMovedItem() async -> LocalItem? {
    guard let share, !share.isFolder, synced.contains(share.item), let parent,
      let found = await parent.sharedDocumentPath(share.item)
    else { return nil }
    let url = drive.appendingPathComponent(found)
    let newRoot = url.deletingLastPathComponent()
    guard let item = LocalScanner.item(at: url.lastPathComponent, root: newRoot),
      item.id == share.item
    else { return nil }
    root = newRoot
    let relative = Self.relative(newRoot, to: drive)
    state.setValue(relative == Self.sharedFolderName ? nil : relative, for: Self.shareRootKey)
    await parent.sharedDocument(share.item, isAt: found, agent: self)
    return item
  }

  /// A share's agent, before it applies changes: if its document or folder is gone from where
  /// it was, follows it first, so a download neither brings back at the old place what the
  /// participant moved nor leaves the moved copy behind.
  func followMovedShare() async {
    guard let share, !synced.isEmpty else { return }
    if share.isFolder {
      if (try? Sys.exists(url(share.name).path)) == false {
        _ = await followMovedFolder()
      }
    } else if let known = synced[share.item],
      (try? Sys.exists(url(known.path).path)) == false
    {
      _ = await followMovedItem()
    }
  }

  /// The drive's agent: where in the drive the document with identity `id` is (a scan of the
  /// drive, for a share's agent that lost its document), or nil.
  func sharedDocumentPath(_ id: String) -> String? {
    LocalScanner.scan(root: folder, known: syncedByPath).first { $0.id == id }?.path
  }

  /// The drive's agent: notes that the shared document `id` (or the folder of the share
  /// ``shareKey(_:)``) is now at `path` (drive-relative).
  func sharedDocument(_ id: String, isAt path: String, agent: SyncAgent) {
    shareLocations[id] = path
    shareAgents[id] = agent
  }

  /// The drive's agent: what to do with a document that carries the identity of one shared
  /// with this account. True if it is the shared document itself, wherever the participant put
  /// it (its share's agent syncs it, not the drive's); false for a copy that kept the identity
  /// (`cp -a`, a file manager's duplicate) while the shared one is still where it was: that is
  /// a new document of the account's own.
  func isSharedDocument(_ item: LocalItem) async -> Bool {
    guard var location = shareLocations[item.id] else { return false }
    if location != item.path, let agent = shareAgents[item.id], let now = await agent.itemLocation()
    {
      shareLocations[item.id] = now
      location = now
    }
    let place = SharedItemPlace.document(at: item.path, location: location) {
      ItemIdentity.stored(at: folder.appendingPathComponent(location)) == item.id
    }
    return await carryOut(place, share: item.id)
  }

  /// The drive's agent, for `id`, a document new to the drive at `path`: nil if no shared
  /// folder's agent syncs it; true if one does and the document is where that folder is now,
  /// or the folder is gone from where it was (moved: the agent follows it, the drive leaves it
  /// alone); false if the folder is still there (a copy that kept the identity: a new document
  /// of the account's own).
  func isMovedWithSharedFolder(_ id: String, at path: String) async -> Bool? {
    var owner = folderShareItems[id]
    if owner == nil {
      for (key, agent) in shareAgents where key.hasPrefix("share:") {
        if await agent.syncs(id) {
          owner = key
          break
        }
      }
    }
    // Asked again after the waits above: the share's agent may have followed its folder.
    guard let owner, let location = shareLocations[owner] else { return nil }
    let place = SharedItemPlace.inSharedFolder(at: path, folder: location) {
      (try? Sys.exists(folder.appendingPathComponent(location).path)) != false
    }
    return await carryOut(place, share: owner)
  }

  /// Carries out what `place` says of an item of the share whose agent is `shareAgents[share]`:
  /// one the participant moved asks that agent for a push (it follows the item). Returns
  /// whether the share's agent syncs the item (false: a copy, the account's own).
  private func carryOut(_ place: SharedItemPlace, share: String) async -> Bool {
    switch place {
    case .withItsShare: return true
    case .copy: return false
    case .movedWithItsShare:
      await shareAgents[share]?.request(push: true)
      return true
    }
  }

  /// The drive's agent: a change at `relative` (drive-relative) inside a share moved out of
  /// ``sharedFolderName`` asks that share's agent for a push (its own watch is there).
  func tellMovedShares(about relative: String) async {
    let shared = Self.sharedFolderName + "/"
    for (id, location) in shareLocations where !location.hasPrefix(shared) {
      guard relative == location || relative.hasPrefix(location + "/") else { continue }
      await shareAgents[id]?.request(push: true)
    }
  }

  /// `url`'s path relative to `base` ("" for `base` itself).
  static func relative(_ url: URL, to base: URL) -> String {
    let path = url.standardizedFileURL.path
    let basePath = base.standardizedFileURL.path
    guard path.hasPrefix(basePath + "/") else { return path == basePath ? "" : path }
    return String(path.dropFirst(basePath.count + 1))
  }
}
