/// `GET /v1/containers/{container}/changes?since=N`: the journal after a cursor.
public struct ChangesPage: Codable, Sendable {
  /// The entries after the cursor asked for, in sequence order.
  public var entries: [ChangeEntry]
  /// The cursor to ask from next: the last entry's sequence, or the one asked for.
  public var cursor: Int64
  /// Whether more entries follow (ask again from ``cursor``).
  public var more: Bool

  /// A page.
  public init(entries: [ChangeEntry], cursor: Int64, more: Bool) {
    self.entries = entries
    self.cursor = cursor
    self.more = more
  }
}
