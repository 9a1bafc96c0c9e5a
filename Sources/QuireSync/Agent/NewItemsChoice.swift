import QuireSyncProtocol

/// Which of a journal page's entries create an item new to this device that the pull can place
/// in one batch, before the page's other entries, decided from values alone: new flat files to
/// write (``NewFilesWriter``) and new items to show as placeholders (``NewPlaceholder``).
///
/// An entry qualifies when it creates an item this device has neither synced nor found on
/// disk, in the documents, under a path this device accepts, with its whole manifest fetched
/// at the entry's revision. Then:
/// - **a file** is a flat file of one member whose chunks are all fetched, which the policy
///   downloads;
/// - **a placeholder** is an item the policy keeps in the cloud, a package only when it has no
///   thumbnail to fetch, at a path no other item of the page passes through (moved there, then
///   away or deleted, which the page's later entries would do over the placeholder).
///
/// A path the page names twice goes the long way in both, where it gets a free name. Anything
/// not chosen goes the long way too, entry by entry in the page's order. What needs the disk
/// (is the path free here?) is the agent's to check on what this chooses.
struct NewItemsChoice {
  /// A chosen entry, its manifest, and its path in the folder (without "Documents/").
  struct Chosen {
    /// The journal entry that creates the item.
    let entry: ChangeEntry
    /// Its whole manifest, at the entry's revision.
    let manifest: RevisionManifest
    /// Its path relative to the synced folder.
    let relative: String
  }

  /// The new flat files to write in one batch, in the page's order.
  var files: [Chosen] = []
  /// The new items to show as placeholders in one batch, in the page's order.
  var placeholders: [Chosen] = []

  /// Chooses among `entries`, one page of the journal: `isKnown` tells an item this device
  /// synced or found on disk, `manifests` the manifests fetched, `hasChunk` a chunk fetched;
  /// `keepsInCloud` says whether the policy keeps a new item of that manifest in the cloud
  /// (never, when it downloads everything).
  init(
    entries: [ChangeEntry], isKnown: (String) -> Bool, manifests: [String: RevisionManifest],
    hasChunk: (ContentHash) -> Bool, keepsInCloud: (RevisionManifest) -> Bool
  ) {
    // The items each path of the page names.
    var named: [String: Set<String>] = [:]
    for entry in entries { named[entry.path, default: []].insert(entry.item) }
    var filePaths = Set<String>()
    var placeholderPaths = Set<String>()
    for entry in entries
    where !entry.conflict && !entry.deleted && entry.isInDocumentsScope && !isKnown(entry.item) {
      guard let manifest = manifests[entry.item], manifest.revision == entry.revision,
        manifest.path.hasPrefix("Documents/")
      else { continue }
      let relative = String(manifest.path.dropFirst("Documents/".count))
      guard (try? SyncPath.check(relative, what: "item path")) != nil else { continue }
      let chosen = Chosen(entry: entry, manifest: manifest, relative: relative)
      if keepsInCloud(manifest) {
        guard !Self.hasThumbnailToFetch(manifest), named[manifest.path] == [entry.item],
          placeholderPaths.insert(relative).inserted
        else { continue }
        placeholders.append(chosen)
      } else {
        guard manifest.since == nil, manifest.kind == .file, manifest.change.upserted.count == 1,
          let member = manifest.change.upserted.first, member.path.isEmpty,
          member.chunks.allSatisfy({ hasChunk($0.hash) }), filePaths.insert(relative).inserted
        else { continue }
        files.append(chosen)
      }
    }
  }

  /// Whether a new package shows a thumbnail that must be fetched with its placeholder.
  static func hasThumbnailToFetch(_ manifest: RevisionManifest) -> Bool {
    guard manifest.kind == .package else { return false }
    var members: [String: SyncedItem.Member] = [:]
    for member in manifest.change.upserted { members[member.path] = SyncAgent.cloudMember(member) }
    return !SyncAgent.thumbnailMembers(members).isEmpty
  }
}
