/// The server's answer to a ``CommitBatch``: one ``CommitResponse`` per commit, in order.
public struct CommitBatchResponse: Codable, Sendable, Equatable {
  /// The answers, in the batch's order.
  public var results: [CommitResponse]

  /// An answer of `results`.
  public init(results: [CommitResponse]) { self.results = results }
}
