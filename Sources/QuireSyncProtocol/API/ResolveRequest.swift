/// `POST /v1/containers/{container}/items/{item}/versions/resolve`: marks conflict revisions
/// resolved (`NSFileVersion.isResolved = true`). Every device hears it through the journal, and
/// the item stops reporting unresolved conflicts once none is left.
public struct ResolveRequest: Codable, Sendable {
  /// The conflict revisions resolved.
  public var revisions: [Int64]

  /// A request resolving `revisions`.
  public init(revisions: [Int64]) { self.revisions = revisions }
}
