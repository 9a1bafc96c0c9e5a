/// A folder's move or rename: every live item whose path starts with `from` + "/" now starts
/// with `to` + "/". It is one commit on the server and one journal entry, whatever the
/// folder holds, so devices apply it as one local rename.
public struct FolderMove: Codable, Sendable, Hashable {
  /// The folder's path before the move (under "Documents/", without a trailing "/").
  public var from: String
  /// The folder's path after the move.
  public var to: String

  /// A move of the folder `from` to `to`.
  public init(from: String, to: String) {
    self.from = from
    self.to = to
  }

  /// Where `path` is after the move: itself if it is not in the folder.
  public func moved(_ path: String) -> String {
    guard let inside = relative(path) else { return path }
    return to + "/" + inside
  }

  /// What follows the folder's "/" in `path`, if `path` is inside the folder (compared as
  /// bytes, as the server compares paths).
  public func relative(_ path: String) -> String? {
    let prefix = from.utf8.count
    guard path.utf8.count > prefix + 1, path.utf8.starts(with: from.utf8),
      path.utf8.dropFirst(prefix).first == UInt8(ascii: "/")
    else { return nil }
    return String(decoding: path.utf8.dropFirst(prefix + 1), as: UTF8.self)
  }
}
