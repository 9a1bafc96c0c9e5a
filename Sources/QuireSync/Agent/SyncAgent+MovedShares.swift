import Foundation
import Quire
import QuireSyncProtocol

/// A shared document the participant moved out of "Shared with me" stays shared, as in iCloud
/// Drive: its share's agent follows it by identity into whatever folder of the drive it went
/// to, and the drive's agent leaves it alone there (a copy that kept the identity is a new
/// document of the account's own). The share's agent keeps the owner's name for it; only the
/// folder it is in is the participant's choice.
///
/// Cost: nothing while the document stays where it is (its agent looks at one path); a scan of
/// the drive once when it has moved and its agent finds it gone from its folder.
extension SyncAgent {
  /// The meta key of a share's state holding the folder its document is in, relative to the
  /// drive ("" for the drive itself); absent while it is in ``sharedFolderName``.
  static let shareRootKey = "root"

  /// Where the agent of `share` finds its item: the folder the participant moved it to, as
  /// its state recorded, else ``sharedFolderName``.
  static func shareRoot(_ share: ShareInfo, drive: URL, state: SyncState) -> URL {
    guard !share.isFolder, let relative = state.value(Self.shareRootKey),
      (try? SyncPath.check(relative.isEmpty ? "x" : relative + "/x", what: "folder")) != nil
    else { return drive.appendingPathComponent(sharedFolderName) }
    return relative.isEmpty ? drive : drive.appendingPathComponent(relative)
  }

  /// The state files of `stateFile`'s shares (`{name}-share-{id}.sqlite`, beside it).
  static func shareStateFiles(of stateFile: URL) -> [URL] {
    let folder = stateFile.deletingLastPathComponent()
    let prefix = stateFile.deletingPathExtension().lastPathComponent + "-share-"
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
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
        let info = try? JSONDecoder().decode(ShareInfo.self, from: Data(json.utf8)),
        !info.isFolder
      else { continue }
      let path = (try? state.syncedItems())?[info.item]?.path ?? info.name
      let root = Self.shareRoot(info, drive: folder, state: state)
      shareLocations[info.item] = Self.relative(root.appendingPathComponent(path), to: folder)
      sharedItems.insert(info.item)
    }
  }

  /// A share's agent: its document's path relative to the drive, where it is now.
  func itemLocation() -> String? {
    guard let share, !share.isFolder else { return nil }
    let path = synced[share.item]?.path ?? share.name
    return Self.relative(root.appendingPathComponent(path), to: drive)
  }

  /// A share's agent whose document is not where it was: asks the drive's agent where in the
  /// drive it is now and, if it is anywhere, follows it there (its root becomes that folder,
  /// recorded in its state). Returns the document as found, or nil if it is nowhere (deleted).
  func followMovedItem() async -> LocalItem? {
    guard let share, !share.isFolder, synced[share.item] != nil, let parent,
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

  /// The drive's agent: where in the drive the document with identity `id` is (a scan of the
  /// drive, for a share's agent that lost its document), or nil.
  func sharedDocumentPath(_ id: String) -> String? {
    LocalScanner.scan(root: folder, known: syncedByPath).first { $0.id == id }?.path
  }

  /// The drive's agent: notes that the shared document `id` is now at `path` (drive-relative).
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
    guard let location = shareLocations[item.id] else { return false }
    if location == item.path { return true }
    if let agent = shareAgents[item.id], let now = await agent.itemLocation() {
      shareLocations[item.id] = now
      if now == item.path { return true }
    }
    let still = shareLocations[item.id] ?? location
    if ItemIdentity.stored(at: folder.appendingPathComponent(still)) == item.id { return false }
    // Moved: its share's agent follows it when asked.
    await shareAgents[item.id]?.request(push: true)
    return true
  }

  /// The drive's agent: a change at `relative` (drive-relative) inside a shared document moved
  /// out of ``sharedFolderName`` asks that share's agent for a push (its own watch is there).
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
