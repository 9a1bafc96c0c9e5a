/// The body of `POST …/items/{item}/shares` (share the item) and of `POST …/shares` with
/// `folder` (share the folder: every item in it, now and later) with the account `user`, in
/// `role`. Sharing again with the same account changes its role.
public struct ShareRequest: Codable, Sendable, Equatable {
  /// The participant's account name.
  public var user: String
  /// What the participant may do.
  public var role: ShareRole
  /// The folder to share, its path under `Documents/` ("Projects/2026"); only with
  /// `POST …/shares`.
  public var folder: String?

  /// Shares with `user` in `role` (the folder `folder`, when given).
  public init(user: String, role: ShareRole, folder: String? = nil) {
    self.user = user
    self.role = role
    self.folder = folder
  }
}
