/// `POST /v1/containers/{container}/items/{item}/versions/resolve`: marks conflict revisions
/// resolved (`NSFileVersion.isResolved = true`). Every device hears it through the journal, and
/// the item stops reporting unresolved conflicts once none is left.
public struct ResolveRequest: Codable, Sendable {
  /// The conflict revisions.
  public var revisions: [Int64]
  /// Whether they are resolved (nil: yes); false marks them unresolved again.
  public var resolved: Bool?

  /// A request marking `revisions` resolved, or not.
  public init(revisions: [Int64], resolved: Bool = true) {
    self.revisions = revisions
    self.resolved = resolved
  }
}
