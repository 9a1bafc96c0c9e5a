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
    return Self.participantPath(folder) + Self.remainder(of: path, after: folder)
  }

  /// A document share's `path` as the participant sees it.
  static func participantPath(_ path: String) -> String {
    "Documents/" + (path.split(separator: "/").last.map(String.init) ?? path)
  }

  /// Whether the owner's `path` is inside the shared folder (always false for a document share).
  func contains(_ path: String) -> Bool {
    guard let folder else { return false }
    return Self.path(path, startsWith: folder + "/")
  }

  /// The owner's path of the participant's `path` in a folder share; `forbidden` outside it.
  func ownerPath(_ path: String) throws(SyncError) -> String {
    let shown = Self.participantPath(folder ?? "") + "/"
    guard let folder, Self.path(path, startsWith: shown), path.utf8.count > shown.utf8.count else {
      throw SyncError(
        .forbidden,
        "“\(path)” is outside the shared folder: a participant adds, moves and renames documents only inside it."
      )
    }
    return folder + "/" + Self.remainder(of: path, after: shown)
  }

  /// Whether `path` starts with `prefix`, compared as bytes of UTF-8, as the database compares
  /// paths. Not `hasPrefix`, which compares characters: “/” followed by a combining mark is one
  /// character, so a name starting with one would be inside the folder for the database and
  /// outside it here (the folder's feed then failed on every call).
  static func path(_ path: String, startsWith prefix: String) -> Bool {
    path.utf8.starts(with: prefix.utf8)
  }

  /// `path` without its first bytes, those of `prefix` (which it starts with).
  static func remainder(of path: String, after prefix: String) -> String {
    String(decoding: path.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
  }

  /// The journal signal the owner's commits wake.
  var signalKey: String { "\(owner)/\(identifier)" }
}
