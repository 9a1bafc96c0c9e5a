/// The body of `POST …/items/{item}/shares`: share the item with the account `user`, in `role`.
/// Sharing again with the same account changes its role.
public struct ShareRequest: Codable, Sendable, Equatable {
  /// The participant's account name.
  public var user: String
  /// What the participant may do.
  public var role: ShareRole

  /// Shares with `user` in `role`.
  public init(user: String, role: ShareRole) {
    self.user = user
    self.role = role
  }
}
