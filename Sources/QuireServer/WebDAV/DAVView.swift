/// How the paths of one part of the WebDAV drive read in URLs and messages: the owner's
/// `root` reads as `shown` after `/dav`. The account's own drive is its container's
/// `Documents` read as `/dav/`; a share is its owner's item or folder
/// ("Documents/Work/Projects") read as `/dav/Shared with me/Projects`.
struct DAVView: Hashable, Sendable {
  /// The owner's path of the part's root, in its container.
  let root: String
  /// What it reads as after `/dav`: "" for the drive, "/Shared with me/NAME" for a share.
  let shown: String

  /// The account's own drive.
  static let drive = DAVView(root: DAVPath.scope, shown: "")
}
