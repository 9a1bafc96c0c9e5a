import Foundation
import Quire
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension SyncAgent {
  /// Shows the page's new items that stay in the cloud (new to this device, not in the folder,
  /// their whole manifest prefetched, no thumbnail to fetch) as placeholders in one batch:
  ///
  /// 1. each placeholder is written under a hidden temporary name beside its target
  ///    (`.quire-sync-…`, which the agent removes at start if a crash left it);
  /// 2. one `syncfs` makes all of them durable;
  /// 3. each is renamed into place, never over a name that appeared meanwhile (that item is left
  ///    to the one-by-one path);
  /// 4. each folder that gained a name is fsynced;
  /// 5. every placeholder placed is recorded in one transaction.
  ///
  /// A device joining a drive of a hundred thousand documents then pays a few system calls per
  /// placeholder and a handful per page, not a transaction, a folder walk and a status row each.
  /// Nothing suspends between the renames and the record, so a cancelled task leaves no
  /// placeholder unrecorded; a crash in between leaves placeholders the next pull rewrites.
  ///
  /// - Returns: the journal sequences of the entries placed, which need only the cursor moved.
  /// - Throws: ``SyncError`` `unavailable` if the disk refuses a write; nothing is placed then.
  func placeNewPlaceholders(
    _ entries: [ChangeEntry], unsynced: [String: LocalItem], prefetched: Prefetched
  ) throws -> Set<Int64> {
    guard downloadPolicy != .all else { return [] }
    var chosen: [(entry: ChangeEntry, record: SyncedItem, target: String, bytes: Data)] = []
    var paths = Set<String>()
    // The items each path of the page names. The batch goes before the page's other entries:
    // a path another item passes through in this page (moved there, then away or deleted)
    // would have its placeholder written over and removed by those entries, and the new item
    // recorded without one, which the next push would take for a deletion. Such a path goes
    // the long way, in the page's order.
    var named: [String: Set<String>] = [:]
    for entry in entries { named[entry.path, default: []].insert(entry.item) }
    let encoder = JSONEncoder()
    for entry in entries
    where !entry.conflict && !entry.deleted && entry.isInDocumentsScope
      && synced[entry.item] == nil && unsynced[entry.item] == nil
    {
      guard let manifest = prefetched.manifests[entry.item], manifest.revision == entry.revision,
        keepsInCloud(manifest), manifest.path.hasPrefix("Documents/")
      else { continue }
      var members: [String: SyncedItem.Member] = [:]
      for member in manifest.change.upserted { members[member.path] = Self.cloudMember(member) }
      let relative = String(manifest.path.dropFirst("Documents/".count))
      let document = url(relative)
      // A thumbnail to fetch, a path this device refuses, one the page names twice, or one
      // taken here goes the long way, where it gets its thumbnail, its error or its free name.
      guard manifest.kind != .package || Self.thumbnailMembers(members).isEmpty,
        named[manifest.path] == [entry.item],
        (try? SyncPath.check(relative, what: "item path")) != nil,
        paths.insert(relative).inserted,
        access(document.path, F_OK) != 0
      else { continue }
      let placeholder = Self.placeholder(
        of: entry.item, manifest: manifest, members: members, document: document, thumbnail: nil)
      guard let bytes = try? encoder.encode(placeholder) else { continue }
      let record = SyncedItem(
        id: entry.item, path: relative, kind: manifest.kind, revision: manifest.revision,
        members: members, isPlaceholder: true)
      chosen.append((entry, record, CloudPlaceholder.url(for: document).path, bytes))
    }
    guard chosen.count > 1 else { return [] }

    var staged: [(index: Int, temporary: String)] = []
    defer { for file in staged { unlink(file.temporary) } }  // those not renamed into place
    var folders = Set<String>()
    for (index, file) in chosen.enumerated() {
      let parent = (file.target as NSString).deletingLastPathComponent
      if !folders.contains(parent) {
        // A folder that cannot be made (a file holds its name) is left to the one-by-one path,
        // which reports it on the item.
        guard
          (try? FileManager.default.createDirectory(
            atPath: parent, withIntermediateDirectories: true)) != nil
        else { continue }
        folders.insert(parent)
      }
      let temporary = parent + "/.quire-sync-\(UUID().uuidString)"
      do {
        let fd = try Sys.open(temporary, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        staged.append((index, temporary))
        defer { Sys.close(fd) }
        try Sys.write(fd, file.bytes)
      } catch {
        throw SyncError(
          .unavailable,
          "Could not write the placeholder “\(file.target)”: \(error). "
            + (DiskFull.caused(error)
              ? "Free some space on this device."
              : "Check that this folder can be written."),
          cause: error)
      }
    }
    try DownloadWriter.sync(root.path) { try Sys.syncFileSystem($0) }
    var placed: [Int] = []
    for file in staged
    where (try? Sys.renameNoReplace(file.temporary, chosen[file.index].target)) != nil {
      placed.append(file.index)
    }
    let renamed = Set(placed)
    staged.removeAll { renamed.contains($0.index) }
    var gained = Set<String>()
    for path in folders {
      var folder = path
      while folder.count >= root.path.count, gained.insert(folder).inserted {
        folder = (folder as NSString).deletingLastPathComponent
      }
    }
    for path in gained { try DownloadWriter.sync(path) { try Sys.fsync($0) } }
    let records = placed.map { chosen[$0].record }
    try state.record(
      records.map { ($0, Array($0.members.keys), []) }, clearingStatus: true)
    for record in records { synced[record.id] = record }
    return Set(placed.map { chosen[$0].entry.sequence })
  }
}
