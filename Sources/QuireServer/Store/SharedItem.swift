import QuireSyncProtocol

/// What a participant reaches through a share: one item of the owner's container, or every item
/// in one of the owner's folders.
struct SharedItem: Sendable {
  /// The share's identity.
  var share: String
  /// The owner's account, which holds the item's chunks.
  var owner: Int64
  /// The owner's container (its row, and its identifier, which names its journal signal).
  var container: Int64
  var identifier: String
  /// The shared item; empty for a folder share.
  var item: String
  /// The shared folder's path in the owner's container ("Documents/Projects"), for a folder
  /// share; nil for a document share.
  var folder: String?
  /// What the participant may do.
  var role: ShareRole

  /// `path` as the participant sees it: a shared document's name under `Documents/`, or a
  /// shared folder's item under `Documents/{folder's name}/`, so the owner's other folders stay
  /// the owner's.
  func participantPath(_ path: String) -> String {
    guard let folder else { return Self.participantPath(path) }
    return Self.participantPath(folder) + path.dropFirst(folder.count)
  }

  /// A document share's `path` as the participant sees it.
  static func participantPath(_ path: String) -> String {
    "Documents/" + (path.split(separator: "/").last.map(String.init) ?? path)
  }

  /// Whether the owner's `path` is inside the shared folder (always false for a document share).
  func contains(_ path: String) -> Bool {
    guard let folder else { return false }
    return path.hasPrefix(folder + "/")
  }

  /// The owner's path of the participant's `path` in a folder share; `forbidden` outside it.
  func ownerPath(_ path: String) throws(SyncError) -> String {
    let shown = Self.participantPath(folder ?? "") + "/"
    guard let folder, path.hasPrefix(shown), path.count > shown.count else {
      throw SyncError(
        .forbidden,
        "“\(path)” is outside the shared folder: a participant adds, moves and renames documents only inside it."
      )
    }
    return folder + "/" + path.dropFirst(shown.count)
  }

  /// The journal signal the owner's commits wake.
  var signalKey: String { "\(owner)/\(identifier)" }
}
