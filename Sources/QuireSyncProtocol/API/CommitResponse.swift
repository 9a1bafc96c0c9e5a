/// The server's answer to a ``CommitRequest``.
public struct CommitResponse: Codable, Sendable, Equatable {
  /// What became of the commit.
  public enum Status: String, Codable, Sendable {
    /// It is the item's current revision now.
    case current
    /// It deleted an item changed since its base: modification beats deletion, so the deletion
    /// is kept as a conflict revision and ``CommitResponse/current`` stays the item's revision.
    case conflict
    /// Its base was not current: the server merged it with the current revision into a new
    /// current revision (``CommitResponse/revision``). What could not be merged took the later
    /// modification, and the other side is kept in ``CommitResponse/conflictRevisions``.
    case merged
  }

  /// The new revision's number.
  public var revision: Int64
  /// Whether it became current.
  public var status: Status
  /// The item's current revision after the commit.
  public var current: Int64
  /// The change journal's sequence number of the commit.
  public var sequence: Int64
  /// The conflict revisions a merge kept (the losing side of what could not be merged); nil or
  /// empty when everything merged.
  public var conflictRevisions: [Int64]?
  /// The path the revision has: the requested one, or "Name 2" (and so on) when another item
  /// already had it. The device moves its copy there.
  public var path: String?

  /// An answer.
  public init(
    revision: Int64, status: Status, current: Int64, sequence: Int64,
    conflictRevisions: [Int64]? = nil, path: String? = nil
  ) {
    self.revision = revision
    self.status = status
    self.current = current
    self.sequence = sequence
    self.conflictRevisions = conflictRevisions
    self.path = path
  }
}
