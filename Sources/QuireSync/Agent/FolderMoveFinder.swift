import QuireSyncProtocol

/// Finds the whole folders among items that only moved: a decision from paths alone, so a test
/// can ask it about any tree.
///
/// A folder `F` moved to `G` when every synced item under `F/` is now at the same place under
/// `G/` and `F` is gone from the disk: a rename, not documents dragged out of a folder that
/// stays. Of nested folders that all moved, the outermost is the move.
enum FolderMoveFinder {
  /// The folder moves among `moved` (each item's synced path and its path now). `synced` is
  /// every synced item's path; `folderExists` tells whether a folder path is on disk.
  static func find(
    moved: [(from: String, to: String)], synced: [String], folderExists: (String) -> Bool
  ) -> [FolderMove] {
    guard !moved.isEmpty else { return [] }
    // Each candidate (old folder, new folder) with how many items support it: an item
    // "D/A/x/y" now at "D/B/x/y" supports "D/A/x → D/B/x" and "D/A → D/B".
    var support: [FolderMove: Int] = [:]
    for item in moved {
      for move in candidates(from: item.from, to: item.to) { support[move, default: 0] += 1 }
    }
    guard !support.isEmpty else { return [] }
    let folders = Set(support.keys.map(\.from))
    // How many synced items each candidate folder holds.
    var held: [String: Int] = [:]
    for path in synced {
      for folder in ancestors(of: path) where folders.contains(folder) {
        held[folder, default: 0] += 1
      }
    }
    let whole = support.filter { move, count in
      count == held[move.from] && !folderExists(move.from)
    }.keys
    // The outermost of nested moves: each item once.
    var chosen: [FolderMove] = []
    for move in whole.sorted(by: { $0.from.utf8.count < $1.from.utf8.count }) {
      guard !chosen.contains(where: { $0.relative(move.from) != nil || $0.from == move.from })
      else { continue }
      chosen.append(move)
    }
    return chosen.sorted { $0.from < $1.from }
  }

  /// The folder moves that would take `from` to `to` (paths in the synced folder): its
  /// trailing components kept, the folders above them renamed. Neither folder is the root.
  static func candidates(from: String, to: String) -> [FolderMove] {
    let old = from.split(separator: "/", omittingEmptySubsequences: false)
    let new = to.split(separator: "/", omittingEmptySubsequences: false)
    var result: [FolderMove] = []
    var kept = 0
    while kept < min(old.count, new.count) - 1,
      old[old.count - 1 - kept] == new[new.count - 1 - kept]
    {
      kept += 1
      let move = FolderMove(
        from: old.dropLast(kept).joined(separator: "/"),
        to: new.dropLast(kept).joined(separator: "/"))
      if move.from == move.to { break }
      result.append(move)
    }
    return result
  }

  /// The folders `path` is in, innermost first, short of the root.
  static func ancestors(of path: String) -> [String] {
    var result: [String] = []
    var rest = Substring(path)
    while let slash = rest.lastIndex(of: "/") {
      rest = rest[..<slash]
      result.append(String(rest))
    }
    return result
  }
}
