/// `POST /v1/containers/{container}/items/{item}/versions/remove`: versions of an item to remove
/// (never its current revision). They are no longer listed; their chunks are freed once no
/// revision refers to them.
public struct VersionSelection: Codable, Sendable {
  /// The revisions.
  public var revisions: [Int64]

  /// A selection of `revisions`.
  public init(revisions: [Int64]) { self.revisions = revisions }
}
