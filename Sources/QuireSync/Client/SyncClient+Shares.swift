import Foundation
import QuireSyncProtocol

extension SyncClient {
  /// Shares `item` with the account `user` in `role` (again: changes the role).
  public func share(item: String, with user: String, role: ShareRole) async throws(SyncError)
    -> ShareInfo
  {
    try await send(
      .POST, "/v1/containers/\(container)/items/\(item)/shares",
      json: ShareRequest(user: user, role: role))
  }

  /// The accounts `item` is shared with.
  public func shares(of item: String) async throws(SyncError) -> [ShareInfo] {
    let list: ShareList = try await send(.GET, "/v1/containers/\(container)/items/\(item)/shares")
    return list.shares
  }

  /// Every share of this account's items in the container.
  public func sharesInContainer() async throws(SyncError) -> [ShareInfo] {
    let list: ShareList = try await send(.GET, "/v1/containers/\(container)/shares")
    return list.shares
  }

  /// Stops sharing `item` with the account `user`.
  public func unshare(item: String, with user: String) async throws(SyncError) {
    let name = user.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? user
    _ = try await raw(
      .DELETE, "/v1/containers/\(container)/items/\(item)/shares/\(name)", body: nil,
      limit: 1 << 16)
  }

  /// The items other accounts share with this one ("Shared with me").
  public func sharedWithMe() async throws(SyncError) -> [ShareInfo] {
    let list: ShareList = try await send(.GET, "/v1/shares")
    return list.shares
  }
}
