/// How a commit meets a WebDAV lock on what it writes, checked inside the commit's own
/// transaction, so that a lock taken a moment before (while a PUT's body was arriving) holds.
enum CommitLocks: Sendable, Equatable {
  /// A device's commit: over a lock, it is kept aside as a conflict version, since the device
  /// has no other place for its work.
  case keepAside
  /// A WebDAV write that submitted these lock tokens: over a lock it does not hold it is
  /// refused (`locked`, 423), and nothing is written.
  case holding(Set<String>)
}
