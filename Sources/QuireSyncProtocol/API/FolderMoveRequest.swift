/// A device's request to move a folder (``FolderMove``) as one commit.
public struct FolderMoveRequest: Codable, Sendable {
  /// The commit's identifier, chosen by the device: the same request sent again (an answer
  /// lost on the way) is applied once.
  public var commit: String
  /// The folder and where it goes.
  public var move: FolderMove
  /// The journal position up to which the device has applied the journal, if it says. A move
  /// into or out of a shared folder is refused when an item in the folder changed after it:
  /// the device would take into the share, or out of it, a document it has not seen there.
  public var seen: Int64?

  /// A request to commit `move` as `commit`.
  public init(commit: String, move: FolderMove) {
    self.commit = commit
    self.move = move
  }
}
