/// Several commits sent as one request (`POST /v1/containers/{container}/commits/batch`): the
/// server stores them in order in one transaction, all or none. A device's first sync of
/// thousands of small documents is a few requests, not thousands.
public struct CommitBatch: Codable, Sendable {
  /// The most commits one batch may hold.
  public static let maximumCount = 1000

  /// The commits, in the order they enter the journal.
  public var commits: [CommitRequest]

  /// A batch of `commits`.
  public init(commits: [CommitRequest]) { self.commits = commits }
}
