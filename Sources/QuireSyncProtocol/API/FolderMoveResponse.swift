/// The server's answer to a ``FolderMoveRequest``.
public struct FolderMoveResponse: Codable, Sendable, Equatable {
  /// The change journal's sequence number of the move.
  public var sequence: Int64
  /// How many items moved with the folder (those other devices added count too).
  public var items: Int

  /// An answer: the move is at `sequence`, with `items` items.
  public init(sequence: Int64, items: Int) {
    self.sequence = sequence
    self.items = items
  }
}
