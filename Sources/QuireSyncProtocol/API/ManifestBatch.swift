/// Several whole manifests asked for in one request (`POST /v1/containers/{container}/manifests`):
/// a device's first sync of thousands of small documents asks for their manifests a page at a
/// time, not one request per document.
public struct ManifestBatch: Codable, Sendable {
  /// The most revisions one batch may ask for.
  public static let maximumCount = 1000

  /// One revision asked for.
  public struct Wanted: Codable, Sendable, Hashable {
    /// The item's identity.
    public var item: String
    /// The revision of it.
    public var revision: Int64

    /// Revision `revision` of `item`.
    public init(item: String, revision: Int64) {
      self.item = item
      self.revision = revision
    }
  }

  /// The revisions wanted, each answered with its whole manifest.
  public var revisions: [Wanted]

  /// A batch asking for `revisions`.
  public init(revisions: [Wanted]) { self.revisions = revisions }
}
