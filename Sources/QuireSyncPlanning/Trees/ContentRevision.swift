/// What a document holds, as one comparable value: the hash of its manifest (every member's
/// name and content hash).
///
/// Two equal revisions hold the same bytes, so the planner never compares contents, only these.
public struct ContentRevision: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The hash, in the form the agent's state stores it.
  public var rawValue: String

  /// A revision from its stored form.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Orders revisions by their stored form.
  public static func < (lhs: ContentRevision, rhs: ContentRevision) -> Bool {
    lhs.rawValue < rhs.rawValue
  }

  /// The stored form.
  public var description: String { rawValue }
}
