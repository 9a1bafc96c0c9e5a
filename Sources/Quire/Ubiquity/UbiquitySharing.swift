/// How a synced item is shared, as the ubiquitous resource keys of a shared item say
/// (`ubiquitousItemIsShared`, `ubiquitousSharedItemCurrentUserRole`,
/// `ubiquitousSharedItemCurrentUserPermissions`, `ubiquitousSharedItemOwnerNameComponents`).
public struct UbiquitySharing: Sendable, Hashable, Codable {
  /// This account's part in the share.
  public enum Role: String, Sendable, Hashable, Codable {
    /// The item is this account's, shared with others.
    case owner
    /// Another account shares the item with this one.
    case participant
  }

  /// What this account may do with the item.
  public enum Permissions: String, Sendable, Hashable, Codable {
    /// It may read the item; a change made on this device is not the owner's.
    case readOnly
    /// It may change the item.
    case readWrite
  }

  /// This account's part in the share.
  public var role: Role
  /// What this account may do with the item.
  public var permissions: Permissions
  /// The owner's account name (for a participant; nil for the owner).
  public var owner: String?

  /// A share in `role` with `permissions`, owned by `owner`.
  public init(role: Role, permissions: Permissions, owner: String? = nil) {
    self.role = role
    self.permissions = permissions
    self.owner = owner
  }
}
