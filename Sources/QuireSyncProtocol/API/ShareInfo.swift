/// One share of an item with another account, as its owner and its participant see it.
///
/// A participant reaches the item through `/v1/shares/{id}/…`, which mirrors a container's
/// routes (changes, manifests, chunks, events, and commits for `write`) limited to this item,
/// shown at `Documents/{name}`.
public struct ShareInfo: Codable, Sendable, Equatable {
  /// The share's identity: the participant's routes are under `/v1/shares/{id}`.
  public var id: String
  /// The owner's account name.
  public var owner: String
  /// The participant's account name.
  public var user: String
  /// The shared item's identity in the owner's container.
  public var item: String
  /// The item's name (the last part of its path), as the participant sees it.
  public var name: String
  /// The item's kind.
  public var kind: ItemKind
  /// What the participant may do.
  public var role: ShareRole
  /// When the share was made (or its role last changed), in seconds since 1970.
  public var created: Double

  /// A share of `item` (`name`, a `kind`) by `owner` with `user` in `role`.
  public init(
    id: String, owner: String, user: String, item: String, name: String, kind: ItemKind,
    role: ShareRole, created: Double
  ) {
    self.id = id
    self.owner = owner
    self.user = user
    self.item = item
    self.name = name
    self.kind = kind
    self.role = role
    self.created = created
  }
}
