import Foundation
import Quire

/// Another device's deletion, applied here without losing a save that races it.
extension SyncAgent {
  /// Moves `local` to the Trash for another device's deletion, unless it changed after it was
  /// read as `local`, the copy the deletion was checked against. Returns whether it went.
  ///
  /// The check cannot come before the move alone: the user may save between any check and the
  /// rename. The rename is atomic, so the trashed copy holds every write made before it; it is
  /// read again after the move, and if its members' stats differ from `local`'s, or a program
  /// still has one open for writing (a read lease is refused: the kernel's word, not a guess),
  /// it is put back where it was. The next push then sends it as a modification of the
  /// last synced revision, and the server keeps the modification over the deletion, as it does
  /// for an edit made before the deletion arrived.
  func trashForDeletion(_ local: LocalItem) throws -> Bool {
    let trashed = try trash.trash(url(local.path))
    var moved = LocalScanner.item(
      at: trashed.lastPathComponent, root: trashed.deletingLastPathComponent())
    moved?.path = local.path
    if moved == local, !Self.hasWriters(trashed, members: local.members.keys) { return true }
    try trash.restore(trashed)
    needsPush = true
    return false
  }

  /// Whether a program has any of `members` of the item at `url` (a file: the member "") open
  /// for writing. A member that cannot be opened, or a file system that cannot say, counts as
  /// not written, as ``MemberSnapshot`` counts it: its stat was just found unchanged.
  private static func hasWriters(_ url: URL, members: some Sequence<String>) -> Bool {
    for member in members {
      let path = member.isEmpty ? url.path : url.path + "/" + member
      guard let fd = try? Sys.open(path, O_RDONLY | O_NOFOLLOW) else { continue }
      defer { Sys.close(fd) }
      if Sys.hasWriters(fd) == true { return true }
    }
    return false
  }
}
