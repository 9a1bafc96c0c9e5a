/// The server's answer to a ``ResolveRequest``.
public struct ResolveResponse: Codable, Sendable, Equatable {
  /// The item's conflict revisions still unresolved.
  public var unresolved: [Int64]
  /// The journal entry that tells every device; nil when nothing changed.
  public var sequence: Int64?

  /// An answer.
  public init(unresolved: [Int64], sequence: Int64?) {
    self.unresolved = unresolved
    self.sequence = sequence
  }
}
