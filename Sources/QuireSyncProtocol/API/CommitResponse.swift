/// The server's answer to a ``CommitRequest``.
public struct CommitResponse: Codable, Sendable, Equatable {
  /// What became of the commit.
  public enum Status: String, Codable, Sendable {
    /// It is the item's current revision now.
    case current
    /// Its base was not current: it is kept as a conflict revision, and ``CommitResponse/current``
    /// stays the item's revision.
    case conflict
  }

  /// The new revision's number.
  public var revision: Int64
  /// Whether it became current.
  public var status: Status
  /// The item's current revision after the commit.
  public var current: Int64
  /// The change journal's sequence number of the commit.
  public var sequence: Int64

  /// An answer.
  public init(revision: Int64, status: Status, current: Int64, sequence: Int64) {
    self.revision = revision
    self.status = status
    self.current = current
    self.sequence = sequence
  }
}
