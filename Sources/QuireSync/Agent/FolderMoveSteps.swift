import QuireSyncProtocol

/// What applying a folder move from the journal does on this device, decided from values
/// alone: the move, the revisions it took, this device's records, and two looks at the disk
/// the agent takes first (is the folder here under its old name, is its new name free).
///
/// The agent carries the steps out; a step whose precondition no longer holds when it runs (the
/// file is no longer at its old path, or something is at its new one) is left undone, and the
/// next push uploads where the item is now. Tested on generated trees
/// (`FolderMoveStepsTests`): every item the move took, and only those, ends at its moved path
/// in the records; a renamed folder is one rename only when it carries every item in it.
struct FolderMoveSteps: Equatable, Sendable {
  /// How the files move on disk.
  enum Files: Equatable, Sendable {
    /// One coordinated rename of the folder, so presenters of documents inside follow it.
    case renameFolder(from: String, to: String)
    /// Each item on its own, if it is still at its old path; then the folders they left
    /// (`husks`, the folder itself last, each after the folders inside it), each removed if
    /// nothing is left in it.
    case each([ItemMove], husks: [String])
  }

  /// One item's move, on its own.
  struct ItemMove: Equatable, Sendable {
    /// The item's identity: a file is moved only if it still carries it.
    var id: String
    /// Its recorded path (of its placeholder, if `isPlaceholder`).
    var from: String
    /// Its path after the folder's move.
    var to: String
    /// Whether it is a placeholder here (its placeholder file moves).
    var isPlaceholder: Bool
  }

  /// How the files move.
  var files: Files
  /// The records that move: each item the move took, with its new path. Their revisions
  /// stay; a commit on one of them is rebased by the server past the move.
  var records: [String: String]

  /// The steps for `move` (in the synced folder's paths), which took the items in its folder at
  /// revisions up to `revisionsBefore`, given this device's records (`synced`), whether the
  /// folder is here under its old name (`folderHere`) and whether nothing is at its new one
  /// (`targetFree`). Nil when the move took nothing this device has.
  ///
  /// An item this device committed into the folder after the move (it had not heard of it)
  /// stays where it is, so the folder is renamed whole only when the move took every synced
  /// item in it.
  static func decide(
    _ move: FolderMove, revisionsBefore: Int64,
    synced: some Sequence<(id: String, path: String, revision: Int64, isPlaceholder: Bool)>,
    folderHere: Bool, targetFree: Bool
  ) -> FolderMoveSteps? {
    var taken: [ItemMove] = []
    var stays = false
    for item in synced where move.relative(item.path) != nil {
      guard item.revision <= revisionsBefore else {
        stays = true
        continue
      }
      taken.append(
        ItemMove(
          id: item.id, from: item.path, to: move.moved(item.path), isPlaceholder: item.isPlaceholder
        ))
    }
    guard !taken.isEmpty else { return nil }
    taken.sort { $0.from < $1.from }
    let records = Dictionary(taken.map { ($0.id, $0.to) }, uniquingKeysWith: { first, _ in first })
    if folderHere, targetFree, !stays {
      return FolderMoveSteps(files: .renameFolder(from: move.from, to: move.to), records: records)
    }
    return FolderMoveSteps(files: .each(taken, husks: husks(of: taken, in: move)), records: records)
  }

  /// The folders `moves` leave behind in `move`'s old folder: each folder an item was in, up to
  /// the old folder itself, the deepest first (a folder only empties once those inside it go).
  static func husks(of moves: [ItemMove], in move: FolderMove) -> [String] {
    var folders: Set<String> = [move.from]
    for item in moves {
      for folder in FolderMoveFinder.ancestors(of: item.from) where move.relative(folder) != nil {
        folders.insert(folder)
      }
    }
    return folders.sorted { left, right in
      let depths = (
        left.utf8.count { $0 == UInt8(ascii: "/") }, right.utf8.count { $0 == UInt8(ascii: "/") }
      )
      return depths.0 != depths.1 ? depths.0 > depths.1 : left < right
    }
  }
}
