/// Whose container a WebDAV request reads and writes: the signed-in account's own drive, or,
/// under "Shared with me", the container of another account that shares an item or a folder
/// with it.
struct DAVDrive: Hashable, Sendable {
  /// The account that owns the container, and the chunks its items name.
  let owner: Int64
  /// The container's identifier.
  let container: String
  /// In a shared document, that item: nothing else is reached through it, whatever else a
  /// path under it may lead to in the owner's container. Nil for a drive or a shared folder.
  var item: String? = nil

  /// `account`'s own drive: its container ``DAVStore/container``.
  static func own(_ account: Int64) -> DAVDrive {
    DAVDrive(owner: account, container: DAVStore.container)
  }

  /// The journal signal that wakes the container's devices and its shares' participants.
  var signalKey: String { "\(owner)/\(container)" }
}
