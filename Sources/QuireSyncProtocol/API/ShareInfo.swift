/// One share of an item or a folder with another account, as its owner and its participant see
/// it.
///
/// A participant reaches it through `/v1/shares/{id}/…`, which mirrors a container's routes
/// (changes, manifests, chunks, events, and commits for `write`) limited to the shared item,
/// shown at `Documents/{name}`, or to the items in the shared folder, shown under
/// `Documents/{name}/`.
public struct ShareInfo: Codable, Sendable, Equatable {
  /// The share's identity: the participant's routes are under `/v1/shares/{id}`.
  public var id: String
  /// The owner's account name.
  public var owner: String
  /// The participant's account name.
  public var user: String
  /// The shared item's identity in the owner's container; empty for a folder share.
  public var item: String
  /// The item's (or folder's) name, the last part of its path, as the participant sees it.
  public var name: String
  /// The item's kind (`package` for a folder share, whose items have kinds of their own).
  public var kind: ItemKind
  /// Whether the share is of a folder: every item in it, now and later.
  public var isFolder: Bool
  /// A folder share's path in the owner's drive, under `Documents/` (the owner's view only; nil
  /// for a participant, who sees the folder at its name).
  public var folder: String?
  /// What the participant may do.
  public var role: ShareRole
  /// When the share was made (or its role last changed), in seconds since 1970.
  public var created: Double

  /// A share of `item` (`name`, a `kind`), or of the folder `folder` when `isFolder`, by
  /// `owner` with `user` in `role`.
  public init(
    id: String, owner: String, user: String, item: String, name: String, kind: ItemKind,
    isFolder: Bool = false, folder: String? = nil, role: ShareRole, created: Double
  ) {
    self.id = id
    self.owner = owner
    self.user = user
    self.item = item
    self.name = name
    self.kind = kind
    self.isFolder = isFolder
    self.folder = folder
    self.role = role
    self.created = created
  }

  private enum CodingKeys: String, CodingKey {
    case id, owner, user, item, name, kind, isFolder, folder, role, created
  }

  /// Decodes a share; one written before folder shares existed is a document share.
  public init(from decoder: any Decoder) throws {
    let values = try decoder.container(keyedBy: CodingKeys.self)
    id = try values.decode(String.self, forKey: .id)
    owner = try values.decode(String.self, forKey: .owner)
    user = try values.decode(String.self, forKey: .user)
    item = try values.decode(String.self, forKey: .item)
    name = try values.decode(String.self, forKey: .name)
    kind = try values.decode(ItemKind.self, forKey: .kind)
    isFolder = try values.decodeIfPresent(Bool.self, forKey: .isFolder) ?? false
    folder = try values.decodeIfPresent(String.self, forKey: .folder)
    role = try values.decode(ShareRole.self, forKey: .role)
    created = try values.decode(Double.self, forKey: .created)
  }
}
