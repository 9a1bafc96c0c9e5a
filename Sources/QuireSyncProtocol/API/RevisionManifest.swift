/// `GET /v1/containers/{container}/items/{item}/revisions/{revision}?since=S`: what a device needs
/// to bring its copy to a revision — the whole manifest, or with `since`, only what changed after
/// the revision `since` on the item's chain.
public struct RevisionManifest: Codable, Sendable {
  /// The item's identity.
  public var item: String
  /// The revision described.
  public var revision: Int64
  /// The revision the change is relative to; nil when ``change`` lists every member.
  public var since: Int64?
  /// Whether the item is a file or a package.
  public var kind: ItemKind
  /// Its path at this revision.
  public var path: String
  /// Whether this revision deletes it.
  public var deleted: Bool
  /// Whether it is a conflict revision.
  public var conflict: Bool
  /// The members: all of them, or those changed since ``since``.
  public var change: ManifestChange

  /// A manifest.
  public init(
    item: String, revision: Int64, since: Int64?, kind: ItemKind, path: String, deleted: Bool,
    conflict: Bool, change: ManifestChange
  ) {
    self.item = item
    self.revision = revision
    self.since = since
    self.kind = kind
    self.path = path
    self.deleted = deleted
    self.conflict = conflict
    self.change = change
  }
}
