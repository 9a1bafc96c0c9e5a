/// `POST /v1/containers/{container}/commits`: a new revision of one item, as a change to the
/// revision it was made from.
///
/// The chunks its members name must be on the server first (`POST /v1/chunks`). A commit whose
/// ``base`` is no longer the item's current revision never overwrites: the server merges it with
/// the current revision and answers ``CommitResponse/Status/merged``, keeping what could not be
/// merged as conflict revisions (a deletion of a changed item: ``CommitResponse/Status/conflict``).
public struct CommitRequest: Codable, Sendable {
  /// A identifier the device chose for this commit (a UUID): sending the same commit again, after
  /// a lost answer, returns the first answer instead of committing twice.
  public var commit: String
  /// The item's stable identity.
  public var item: String
  /// Whether it is a flat file or a package.
  public var kind: ItemKind
  /// Its path in the container, such as `Documents/Notes/Trip.mydoc`.
  public var path: String
  /// The revision this one was made from; nil for a new item.
  public var base: Int64?
  /// Whether this revision deletes the item.
  public var deleted: Bool
  /// The members written and removed since ``base`` (all members for a new item).
  public var change: ManifestChange
  /// The journal position up to which the device has applied the journal, if it says: a
  /// folder's move after ``base`` and after this position is one the device has not heard of,
  /// and the commit's path is taken through it. Without it, the server takes a path left where
  /// ``base`` had it as not moved by the device.
  public var seen: Int64?

  /// A commit of `change` to `item` at `path` on top of `base`.
  public init(
    commit: String, item: String, kind: ItemKind, path: String, base: Int64?,
    deleted: Bool = false, change: ManifestChange
  ) {
    self.commit = commit
    self.item = item
    self.kind = kind
    self.path = path
    self.base = base
    self.deleted = deleted
    self.change = change
  }
}
