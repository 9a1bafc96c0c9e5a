/// What a document knows changed on disk since a version a store kept of it: the members its own
/// saves wrote, removed or re-stamped since then. A ``VersionStore`` told this keeps the next
/// version by looking at those members only, so keeping a version costs what the saves changed.
public struct VersionChanges: Sendable, Hashable {
  /// The kept version the changes are counted from (the name ``VersionStore`` returned when it
  /// kept it).
  public var version: String
  /// The members (paths relative to the package) written, removed or re-stamped since.
  public var members: Set<String>

  /// The changes since `version`: `members` of the package.
  public init(since version: String, members: Set<String> = []) {
    self.version = version
    self.members = members
  }
}
