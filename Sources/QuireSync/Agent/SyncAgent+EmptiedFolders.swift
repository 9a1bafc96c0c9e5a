import Foundation
import QuireCore

extension SyncAgent {
  /// A shared folder's agent mirrors the owner's folders, which exist only through the
  /// documents in them: once an entry moved the item that was at `old` to another folder, or
  /// took it away, the folders it leaves empty go, from its own folder up to the shared
  /// folder (kept). A folder renamed on the owner's side, its items moved here one by one,
  /// leaves nothing behind, not even an empty folder. `rmdir` removes only an empty folder: one
  /// that holds anything, a document the participant put there meanwhile included, stays.
  func removeFoldersEmptied(from old: String, now current: String?) {
    guard let share, share.isFolder else { return }
    for folder in Self.foldersLeft(by: old, now: current, shareFolder: share.name) {
      guard (try? Sys.rmdir(root.appendingPathComponent(folder).path)) != nil else { return }
    }
  }

  /// The folders an item that was at `old` and is now at `current` (nil: gone) may have left
  /// empty, innermost first: from its old folder up to the shared folder `shareFolder`, which
  /// stays; none if it is still in its old folder.
  static func foldersLeft(by old: String, now current: String?, shareFolder: String) -> [String] {
    var folder = Substring(old)
    folder = folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]
    if let current, current.hasPrefix(folder + "/") { return [] }  // still in that folder
    var result: [String] = []
    while folder.contains("/"), folder != Substring(shareFolder) {
      result.append(String(folder))
      folder = folder[..<folder.lastIndex(of: "/")!]
    }
    return result
  }
}
