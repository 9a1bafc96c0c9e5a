/// Where a WebDAV request's path leads: a path in the account's drive or in a share
/// (``DAVMount``), or the folder "Shared with me" itself, which lists the shares and takes no
/// write.
enum DAVPlace: Sendable {
  /// `path`, in `mount`.
  case mounted(DAVMount, DAVPath)
  /// `/dav/Shared with me/`, or (`path` under it) a name there that no share has.
  case sharedWithMe(DAVPath)
}
