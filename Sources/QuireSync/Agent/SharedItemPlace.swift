/// What an item carrying the identity of something shared with this account is, as the drive's
/// agent sees it: decided from where the share was last known to be and one look at the disk,
/// so the rules a participant relies on are asked of values (`SharedItemPlaceTests`).
///
/// A shared document or folder the participant moved anywhere in the drive stays shared, as in
/// iCloud Drive; a copy that kept its identity (`cp -a`, a file manager's duplicate) while the
/// shared one is still where it was is a new document of the account's own.
enum SharedItemPlace: Equatable, Sendable {
  /// The shared item itself, where its share's agent syncs it.
  case withItsShare
  /// The shared item, moved by the participant: its share's agent follows it when asked (a
  /// push), and the drive's agent leaves it alone.
  case movedWithItsShare
  /// A copy that kept the identity: it takes a new one and is the account's own.
  case copy

  /// A document at `path` (drive-relative) carrying a shared document's identity, which was last
  /// known at `location`; `originalStillThere` tells, when asked, whether the file at `location`
  /// still carries that identity.
  static func document(at path: String, location: String, originalStillThere: () -> Bool)
    -> SharedItemPlace
  {
    if path == location { return .withItsShare }
    return originalStillThere() ? .copy : .movedWithItsShare
  }

  /// A document at `path` that a shared folder's agent syncs, the folder last known at
  /// `folder`; `folderStillThere` tells, when asked, whether that folder is on disk (a look that
  /// fails counts as there: nothing is taken for moved on a guess).
  static func inSharedFolder(at path: String, folder: String, folderStillThere: () -> Bool)
    -> SharedItemPlace
  {
    if path.utf8.count > folder.utf8.count + 1, path.utf8.starts(with: folder.utf8),
      path.utf8.dropFirst(folder.utf8.count).first == UInt8(ascii: "/")
    {
      return .withItsShare
    }
    return folderStillThere() ? .copy : .movedWithItsShare
  }
}
