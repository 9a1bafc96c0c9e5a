import QuireSyncProtocol

/// A folder move a revision came from, as a commit on an older base must follow it: the move,
/// its journal sequence (a device that has `seen` it placed its item knowing it), and the device
/// that made it (which knows it before its journal does).
struct FolderMoveMade: Sendable {
  /// The move's journal sequence.
  var sequence: Int64
  /// The folder's old and new paths, in the container.
  var move: FolderMove
  /// The identifier of the device that made the move.
  var device: String
}
