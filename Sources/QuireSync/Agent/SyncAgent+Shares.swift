import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension SyncAgent {
  /// The drive's folder where the items other accounts share with this one are synced, each by
  /// an agent of its own (``ShareInfo``'s routes, its own state), beside the drive's agent.
  public static let sharedFolderName = "Shared with me"

  /// A share's state file, beside the drive's: `{drive's state}-share-{id}.sqlite`.
  static func stateFile(of share: String, parent: URL) -> URL {
    let safe =
      share.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
      ? share : ContentHash(of: Array(share.utf8)).hex
    let base = parent.deletingPathExtension().lastPathComponent
    return parent.deletingLastPathComponent().appendingPathComponent(
      "\(base)-share-\(safe).sqlite")
  }

  /// The documents of the folder this agent syncs. A shared document's agent has only that
  /// document, at its path in its ``root`` (or what another program saved over it there; one
  /// moved elsewhere is found by ``followMovedItem()``). A shared folder's agent has everything
  /// in the folder, under its ``root``. The drive's agent has everything but the shares, in
  /// ``sharedFolderName`` or wherever the participant moved them (a document of its own there,
  /// synced before, stays its own; a new one there is the participant's to move into the
  /// drive).
  func scan() -> [LocalItem] {
    let known = syncedByPath
    if let share, !share.isFolder {
      let path = synced.record(share.item)?.path ?? share.name
      return LocalScanner.item(at: path, root: root).map { [$0] } ?? []
    }
    if let share {
      // The folder's own subtree, its paths under the folder's name; and what was synced
      // under another name, where it was: the owner renamed the folder, and its documents
      // move across with the journal read again (not deleted meanwhile).
      let inside = share.name + "/"
      var knownInside: [String: SyncedRecord] = [:]
      var items: [LocalItem] = []
      for (path, item) in known {
        if path.hasPrefix(inside) {
          knownInside[String(path.dropFirst(inside.count))] = item
        } else if let found = LocalScanner.item(at: path, root: root) {
          items.append(found)
        }
      }
      return items
        + LocalScanner.scan(root: url(share.name), known: knownInside).map {
          var item = $0
          item.path = inside + item.path
          return item
        }
    }
    return ownItems(LocalScanner.scan(root: folder, known: known))
  }

  /// The agent's documents in `scopes` only (``ChangedScopes``, relative to ``folder``), as
  /// ``scan()`` finds them there; `known` holds at least the synced items in them, by path. A
  /// shared folder's agent looks in the places inside its folder (its monitor hears every
  /// share's).
  func scan(in scopes: ChangedScopes, known: [String: SyncedRecord]) -> [LocalItem] {
    guard let share else {
      return ownItems(LocalScanner.scan(root: folder, scopes: scopes, known: known))
    }
    // A place around the folder is all of it; one beside it is another share's.
    let inside = ChangedScopes(
      scopes.paths.compactMap { path in
        if path == share.name || ChangedScopes.isWithin(path, share.name) { return path }
        return path.isEmpty || ChangedScopes.isWithin(share.name, path) ? share.name : nil
      })
    guard !inside.paths.isEmpty else { return [] }
    return LocalScanner.scan(root: root, scopes: inside, known: known)
  }

  /// Whether a push may look only where the monitor said the folder changed. The drive's may.
  /// A shared folder's may while the folder is where its monitor hears it (not moved by the
  /// participant) and every item it synced is in it (after the owner renamed it, what was
  /// synced under the old name is looked for there, and moves across as the journal is read
  /// again). A shared document's scan is one look already.
  var pushMayLookInPlaces: Bool {
    guard let share else { return true }
    guard share.isFolder, root == folder,
      (try? Sys.status(url(share.name).path)) != nil
    else { return false }
    let inside = share.name + "/"
    return synced.values.allSatisfy { $0.folder == share.name || $0.folder.hasPrefix(inside) }
  }

  /// What the drive's scan keeps of `items`: not the shares, wherever they are.
  private func ownItems(_ items: [LocalItem]) -> [LocalItem] {
    let moved = shareLocations.values.filter { !$0.hasPrefix(Self.sharedFolderName + "/") }
    return items.filter { item in
      guard !synced.contains(item.id) else { return true }
      return !item.path.hasPrefix(Self.sharedFolderName + "/")
        && !moved.contains { item.path.hasPrefix($0 + "/") }
    }
  }

  /// A change the share does not take (a read-only participant's edit, made by any program):
  /// the changed item moves into the drive as "Name (my changes)", a document of this account's
  /// own that syncs as any other, and the shared revision comes back in its place. Nothing the
  /// participant wrote is lost, and the owner's item stays as the owner has it.
  func keepAside(_ item: LocalItem) async throws {
    guard let known = synced[item.id] else {
      // A new document in a read-only shared folder: it is the participant's own.
      _ = try keepInDrive(url(item.path))
      return
    }
    _ = try keepInDrive(url(item.path))
    try await download(item: known.id, revision: known.revision, base: nil)
  }

  /// Moves the item at `source` into the drive as "Name (my changes)" (a free name), without
  /// the shared item's identity; returns where it went.
  func keepInDrive(_ source: URL) throws -> URL {
    let target = drive.appendingPathComponent(
      FileName.unique(
        source.lastPathComponent,
        marker: { $0 == 1 ? " (my changes)" : " (my changes \($0))" }
      ) { (try? Sys.exists(drive.appendingPathComponent($0).path)) != false })
    try FileCoordinator().coordinate(
      writingItemAt: source, options: .forMoving, writingItemAt: target, options: .forReplacing
    ) { from, to in
      try Sys.move(from.path, to: to.path)
      try ItemIdentity.assign(nil, to: to)  // a new document, not the owner's
      Self.allowWriting(to)  // this account's own now, whatever the share allowed
    }
    return target
  }

  /// The drive's agent: at once, whenever the server says shares changed (its share events),
  /// and every ``sharesInterval`` in case a word was lost, asks the server what is shared with
  /// this account. Each new share gets an agent of its own in ``sharedFolderName``; one whose
  /// role or name changed is restarted; one revoked is stopped and its item leaves the device
  /// (``leave(_:)``).
  func followShares() async {
    let (looks, asker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let pushed = Task { [client] in
      var pause = Duration.milliseconds(100)
      while !Task.isCancelled {
        do {
          for try await _ in client.shareEvents() {
            pause = .milliseconds(100)
            asker.yield()
          }
        } catch {}
        if Task.isCancelled { return }
        try? await Task.sleep(for: pause)  // back-off before reconnecting, not a wait for an event
        pause = min(pause * 2, .seconds(5))
      }
    }
    let ticking = Task { [sharesInterval] in
      while !Task.isCancelled {
        try? await Task.sleep(for: sharesInterval)  // the next look, not a wait for an event
        asker.yield()
      }
    }
    shareLooks.asker = asker
    defer {
      pushed.cancel()
      ticking.cancel()
      shareLooks.end()
    }
    asker.yield()
    var running: [String: (info: ShareInfo, task: Task<Void, Never>)] = [:]
    var renamedFrom: [String: String] = [:]  // share → the folder name it had before
    var retry = Duration.milliseconds(100)
    for await _ in looks {
      if Task.isCancelled { break }
      // The waits asked for before this look began are answered when it ends, if it heard the
      // server; else they stay for the next look: soon after, or at the resume.
      let covering = shareLooks.asked
      var heard = false
      defer {
        if heard {
          shareLooks.finished(covering: covering)
          retry = .milliseconds(100)
        } else if shareLooks.isWaiting && !paused {
          Task { [retry] in
            try? await Task.sleep(for: retry)  // back-off before looking again, not a wait
            asker.yield()
          }
          retry = min(retry * 2, .seconds(5))
        }
      }
      if !paused, let owned = try? await client.sharesInContainer() {
        // For SyncStatusSource: which of the drive's items are shared (their sharing keys):
        // item identities, and shared folders as "path/" (an identity has no slash).
        let items = Set(owned.map { $0.folder.map { $0 + "/" } ?? $0.item }).sorted()
        let json = String(decoding: (try? JSONEncoder().encode(items)) ?? Data(), as: UTF8.self)
        if state.value("ownedShares") != json { state.setValue(json, for: "ownedShares") }
        heard = true
      }
      // Paused meanwhile: nothing is started or left until the resume, which looks again.
      if !paused, let shares = try? await client.sharedWithMe(), !paused {
        let current = Dictionary(shares.map { ($0.id, $0) }) { first, _ in first }
        sharedItems = Set(shares.map(\.item))
        for (id, child) in running where current[id] != child.info {
          child.task.cancel()
          await child.task.value
          running[id] = nil
          let key = child.info.isFolder ? Self.shareKey(id) : child.info.item
          shareAgents[key] = nil
          // Revoked, or another role: a read share's files have no write permission, a write
          // share's have the owner's, so the item comes again as the new role has it.
          if current[id]?.role != child.info.role {
            leave(child.info)
            shareLocations[key] = nil
            folderShareItems = folderShareItems.filter { $0.value != key }
          } else if child.info.isFolder, current[id]?.name != child.info.name {
            // The owner renamed the folder and the share followed: read the share's journal
            // again from the start, as the new name shows it (documents moved across in
            // earlier batches came as deletions then). What is here already is not fetched.
            let file = Self.stateFile(of: id, parent: stateFile)
            (try? SyncState(file: file))?.setValue("0", for: "cursor")
            renamedFrom[id] = child.info.name
          }
        }
        for (id, info) in current where running[id] == nil {
          do {
            let agent = try SyncAgent(share: info, parent: self)
            let key = info.isFolder ? Self.shareKey(id) : info.item
            shareAgents[key] = agent
            shareLocations[key] = await agent.itemLocation()
            // Once the documents have moved to the folder's new name, its old name goes too if
            // nothing is left in it (a document of the participant's own there stays, and so
            // does the folder).
            let old = renamedFrom.removeValue(forKey: id).map {
              folder.appendingPathComponent(Self.sharedFolderName).appendingPathComponent($0)
            }
            running[id] = (
              info,
              Task {
                // After every catch-up, not only the first: one cut short (the server busy)
                // still leaves documents in the old folder.
                if let old { await agent.setCaughtUp { Self.removeEmptyFolders(old) } }
                try? await agent.run()
              }
            )
          } catch {
            note(error)
            heard = false  // the share is not synced: a wait is not answered
          }
        }
      } else {
        heard = false
      }
    }
    for child in running.values { child.task.cancel() }
    for child in running.values { await child.task.value }
  }

  /// A revoked share's item leaves the device: into the Trash if it is as last synced, else
  /// into the drive as "Name (my changes)", since the owner never got that change. Then the
  /// share's state is removed.
  func leave(_ share: ShareInfo) {
    let file = Self.stateFile(of: share.id, parent: stateFile)
    let shared = folder.appendingPathComponent(Self.sharedFolderName)
    let known = (try? SyncState(file: file)).flatMap { try? $0.syncedItems() } ?? [:]
    let inside = share.name + "/"
    var found: [(root: URL, item: LocalItem)] = []
    let location = shareLocations[share.isFolder ? Self.shareKey(share.id) : share.item]
    let sharedFolder =
      location.map { folder.appendingPathComponent($0) }
      ?? shared.appendingPathComponent(share.name)
    if share.isFolder {
      // Wherever the participant moved it; paths as its agent recorded them.
      let root = sharedFolder.deletingLastPathComponent()
      found = LocalScanner.scan(root: sharedFolder).map {
        var item = $0
        item.path = inside + item.path
        return (root, item)
      }
    } else if let location {
      // Wherever the participant moved it.
      let url = folder.appendingPathComponent(location)
      let root = url.deletingLastPathComponent()
      if let item = LocalScanner.item(at: url.lastPathComponent, root: root), item.id == share.item
      {
        found.append((root, item))
      }
    } else {
      found = LocalScanner.scan(root: shared).filter { $0.id == share.item }.map { (shared, $0) }
    }
    for (root, local) in found {
      let url = root.appendingPathComponent(local.path)
      do {
        if let synced = known[local.id], synced.matches(local) {
          _ = try trash.trash(url)
        } else {
          _ = try keepInDrive(url)
        }
      } catch {
        note(error)
      }
    }
    if share.isFolder {
      Self.removeEmptyFolders(sharedFolder)
    }
    for suffix in ["", "-wal", "-shm", ".lock"] {
      try? Sys.unlink(file.path + suffix)
    }
  }

  /// Removes `folder` and the folders in it that hold nothing (a left or renamed folder
  /// share's); `rmdir` leaves any that holds something.
  static func removeEmptyFolders(_ folder: URL) {
    for name in (try? Sys.names(in: folder.path)) ?? [] {
      let path = folder.path + "/" + name
      if let info = try? Sys.status(path), LocalScanner.isDirectory(info) {
        removeEmptyFolders(URL(fileURLWithPath: path))
      }
    }
    try? Sys.rmdir(folder.path)
  }

  /// Gives the owner write permission on `url` and, for a package, on everything in it.
  static func allowWriting(_ url: URL) {
    allowWriting(path: url.path)
  }

  private static func allowWriting(path: String) {
    guard let info = try? Sys.status(path), info.st_mode & S_IFMT != S_IFLNK else { return }
    try? Sys.chmod(path, (info.st_mode & 0o7777) | 0o200)
    guard LocalScanner.isDirectory(info) else { return }
    for name in (try? Sys.names(in: path)) ?? [] { allowWriting(path: path + "/" + name) }
  }
}
