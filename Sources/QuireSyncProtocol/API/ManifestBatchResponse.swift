/// The answer to a ``ManifestBatch``: one whole manifest per revision asked for, in its order.
public struct ManifestBatchResponse: Codable, Sendable {
  /// The manifests.
  public var manifests: [RevisionManifest]

  /// An answer holding `manifests`.
  public init(manifests: [RevisionManifest]) { self.manifests = manifests }
}
