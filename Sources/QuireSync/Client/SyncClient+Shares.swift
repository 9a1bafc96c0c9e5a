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

  /// Shares the folder `folder` (its path in the synced folder, "Projects/2026") with the
  /// account `user` in `role`: every document in it, now and later (again: changes the role).
  public func share(folder: String, with user: String, role: ShareRole) async throws(SyncError)
    -> ShareInfo
  {
    try await send(
      .POST, "/v1/containers/\(container)/shares",
      json: ShareRequest(user: user, role: role, folder: folder))
  }

  /// The accounts the folder `folder` (its path in the synced folder) is shared with.
  public func shares(ofFolder folder: String) async throws(SyncError) -> [ShareInfo] {
    try await sharesInContainer().filter { $0.folder == folder }
  }

  /// Stops sharing the folder `folder` with the account `user`; `notFound` if it is not shared
  /// with that account.
  public func unshare(folder: String, with user: String) async throws(SyncError) {
    guard let share = try await shares(ofFolder: folder).first(where: { $0.user == user }) else {
      throw SyncError(.notFound, "The folder “\(folder)” is not shared with “\(user)”.")
    }
    try await unshare(share: share.id)
  }

  /// Stops the share `id` (one of ``sharesInContainer()``): of a folder, or of an item.
  public func unshare(share id: String) async throws(SyncError) {
    let id = id.addingPercentEncoding(withAllowedCharacters: Self.identifierCharacters) ?? id
    _ = try await raw(
      .DELETE, "/v1/containers/\(container)/shares/\(id)", body: nil, limit: 1 << 16)
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

  /// What a share identity keeps unescaped in a path: a UUID's letters, digits and dashes.
  private static let identifierCharacters = CharacterSet.alphanumerics.union(
    CharacterSet(charactersIn: "-"))

  /// The items other accounts share with this one ("Shared with me").
  public func sharedWithMe() async throws(SyncError) -> [ShareInfo] {
    let list: ShareList = try await send(.GET, "/v1/shares")
    return list.shares
  }
}
