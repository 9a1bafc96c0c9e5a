import QuireSyncProtocol

/// The part of the drive a WebDAV request reaches, and what the signed-in account may do there:
/// its own drive, or an item or folder another account shares with it, at
/// `/dav/Shared with me/NAME`. A share's reads and writes go to its owner's container, as its
/// participant's devices' do, and never leave the shared item or folder.
struct DAVMount: Sendable {
  /// What the signed-in account may do in it.
  enum Access: Sendable, Equatable {
    /// Its own drive: everything.
    case owner
    /// A share in the `read` role: reads only.
    case reader
    /// A share in the `write` role: edits, and, in a shared folder, new items, moves and
    /// deletions inside it; never a move or deletion of the shared item or folder itself.
    case writer
  }

  /// The signed-in account.
  let account: Int64
  /// Whose container it is.
  let drive: DAVDrive
  /// What the signed-in account may do.
  let access: Access
  /// Its root, read in its view: the drive, or the shared item or folder.
  let root: DAVPath
  /// The share's identity; nil for the account's own drive.
  var share: String? = nil

  /// `account`'s own drive.
  static func own(_ account: Int64) -> DAVMount {
    DAVMount(account: account, drive: .own(account), access: .owner, root: .drive)
  }

  /// Checks that a write may change `paths` and may move, replace or delete `removed`: 403 in
  /// a read-only share, and for the shared item or folder itself, which only its owner moves,
  /// renames or deletes.
  func checkWrite(changing paths: [DAVPath], removing removed: [DAVPath] = []) throws(DAVError) {
    switch access {
    case .owner:
      return
    case .reader:
      throw DAVError(
        .forbidden, .forbidden,
        "“\(paths.first ?? root)” is in “\(root)”, shared with you read-only; ask its owner for write access, or copy it into your drive."
      )
    case .writer:
      if removed.contains(root) {
        throw DAVError(
          .forbidden, .forbidden,
          "Only its owner moves, renames or deletes “\(root)”; leave the share to remove it from your drive."
        )
      }
    }
  }

  /// The device a commit here is made as: the signed-in one, in the owner's account, as a
  /// participant's device commits through a share.
  func committer(_ device: AuthenticatedDevice) -> AuthenticatedDevice {
    AuthenticatedDevice(id: device.id, user: drive.owner)
  }

  /// Whether `other` is the same part of the drive.
  func isSame(as other: DAVMount) -> Bool { drive == other.drive && root == other.root }
}
