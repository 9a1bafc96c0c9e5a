import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

extension SyncAgent {
  /// Shows the page's new items that stay in the cloud (new to this device, not in the folder,
  /// their whole manifest prefetched, no thumbnail to fetch) as placeholders in one batch:
  ///
  /// 1. each placeholder is written as an unnamed file in its folder (`O_TMPFILE`), kept open;
  ///    where the file system has none, or the page would hold too many files open, under a
  ///    hidden temporary name beside its target instead (`.quire-sync-…`, which the agent
  ///    removes at start if a crash left it);
  /// 2. one `syncfs` makes all of them durable;
  /// 3. each is linked (or renamed) into place, never over a name that appeared meanwhile (that
  ///    item is left to the one-by-one path);
  /// 4. each folder that gained a name is fsynced.
  ///
  /// An unnamed file costs no name to make and remove in its folder, and a crash leaves nothing
  /// of it: writing a hundred thousand placeholders this way took a fifth less time than with
  /// temporary names.
  ///
  /// The writes and the renames are spread over the cores (``ParallelRuns``). The caller
  /// records what was placed, several pages in one transaction (``PendingRecords``). A device
  /// joining a drive of a hundred thousand documents then pays a few system calls per
  /// placeholder and a handful per page, not a transaction, a folder walk and a status row
  /// each. A crash before the record leaves placeholders that no scan sees (their names are
  /// hidden); the next pull, from the cursor before them, finds each in place and records it.
  ///
  /// - Returns: the journal sequences of the entries placed, which need only the cursor moved,
  ///   and the records of the placeholders placed.
  /// - Throws: ``SyncError`` `unavailable` if the disk refuses a write; nothing is placed then.
  func placeNewPlaceholders(_ choice: [NewItemsChoice.Chosen]) throws
    -> (sequences: Set<Int64>, records: [SyncedItem])
  {
    // Paths are built as strings: `URL`'s appending took a twentieth of a page's time.
    let rootPath = root.path
    var chosen: [NewPlaceholder] = []
    for each in choice {
      let (entry, manifest, relative) = (each.entry, each.manifest, each.relative)
      // A path taken here goes the long way, where it gets its free name.
      guard (try? Sys.status(rootPath + "/" + relative)) == nil else { continue }
      var members: [String: SyncedItem.Member] = [:]
      for member in manifest.change.upserted { members[member.path] = Self.cloudMember(member) }
      // The last slash's byte: a `Character` search misses a slash that a combining accent
      // after it joins to.
      let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/"))
      let name = slash.map { String(relative[relative.utf8.index(after: $0)...]) } ?? relative
      let folder = slash.map { rootPath + "/" + relative[..<$0] } ?? rootPath
      let record = SyncedItem(
        id: entry.item, path: relative, kind: manifest.kind, revision: manifest.revision,
        members: members, isPlaceholder: true)
      chosen.append(
        NewPlaceholder(
          sequence: entry.sequence, record: record, folder: folder,
          target: folder + "/" + CloudPlaceholder.fileName(for: name),
          placeholder: Self.placeholder(
            of: entry.item, manifest: manifest, members: members, name: name, thumbnail: nil)))
    }
    guard chosen.count > 1 else { return ([], []) }

    // A folder that cannot be made (a file holds its name) is left to the one-by-one path,
    // which reports it on the item.
    var folders = Set<String>()
    var refused = Set<String>()
    for file in chosen where !folders.contains(file.folder) && !refused.contains(file.folder) {
      if (try? AgentFolders.make(file.folder)) != nil {
        folders.insert(file.folder)
      } else {
        refused.insert(file.folder)
      }
    }
    let writable = refused.isEmpty ? chosen : chosen.filter { !refused.contains($0.folder) }
    var staged: [(index: Int, file: NewPlaceholder.Staged)] = []
    defer { for entry in staged { entry.file.discard() } }  // those not handed to `place`
    // Unnamed files stay open until they are placed: a quarter of the process's file limit at
    // most, shared by the runs; the rest of a page is staged under temporary names.
    let unnamedLimit = FileLimit.current / 4 / 4  // four runs at most
    let runs = ParallelRuns.map(writable.count) { range in
      NewPlaceholder.stage(writable, range, unnamedLimit: unnamedLimit)
    }
    staged = runs.flatMap(\.staged)
    if let (target, error) = runs.lazy.compactMap(\.failure).first {
      throw SyncError(
        .unavailable,
        "Could not write the placeholder “\(target)”: \(error). "
          + (DiskFull.caused(error)
            ? "Free some space on this device."
            : "Check that this folder can be written."),
        cause: error)
    }
    try DownloadWriter.sync(rootPath) { try Sys.syncFileSystem($0) }
    let moves = staged
    staged = []  // `place` uses up each, placed or not
    let placed = ParallelRuns.map(moves.count) { range in
      range.filter { NewPlaceholder.place(moves[$0].file, as: writable[moves[$0].index]) }
        .map { moves[$0].index }
    }.flatMap { $0 }
    var gained = Set<String>()
    for path in folders {
      var folder = path
      while folder.count >= rootPath.count, gained.insert(folder).inserted {
        folder = (folder as NSString).deletingLastPathComponent
      }
    }
    for path in gained { try DownloadWriter.sync(path) { try Sys.fsync($0) } }
    return (Set(placed.map { writable[$0].sequence }), placed.map { writable[$0].record })
  }
}
