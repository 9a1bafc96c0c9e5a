/// A device's request to move a folder (``FolderMove``) as one commit.
public struct FolderMoveRequest: Codable, Sendable {
  /// The commit's identifier, chosen by the device: the same request sent again (an answer
  /// lost on the way) is applied once.
  public var commit: String
  /// The folder and where it goes.
  public var move: FolderMove

  /// A request to commit `move` as `commit`.
  public init(commit: String, move: FolderMove) {
    self.commit = commit
    self.move = move
  }
}
