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
    var folder = Substring(old)
    folder = folder[..<(folder.lastIndex(of: "/") ?? folder.startIndex)]
    if let current, current.hasPrefix(folder + "/") { return }  // still in that folder
    while folder.contains("/"), folder != Substring(share.name) {
      guard (try? Sys.rmdir(root.appendingPathComponent(String(folder)).path)) != nil else {
        return
      }
      folder = folder[..<folder.lastIndex(of: "/")!]
    }
  }
}
