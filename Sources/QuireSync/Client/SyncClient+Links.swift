import QuireSyncProtocol

extension SyncClient {
  /// `item`'s public read-only link, made now unless it has one.
  public func makePublicLink(item: String) async throws(SyncError) -> PublicLink {
    try await send(.POST, "/v1/containers/\(container)/items/\(item)/link")
  }

  /// `item`'s public link, or nil if it has none.
  public func publicLink(item: String) async throws(SyncError) -> PublicLink? {
    do {
      return try await send(.GET, "/v1/containers/\(container)/items/\(item)/link") as PublicLink
    } catch  where error.code == .notFound {
      return nil
    }
  }

  /// Revokes `item`'s public link: its address gives 404 from now on.
  public func revokePublicLink(item: String) async throws(SyncError) {
    _ = try await raw(
      .DELETE, "/v1/containers/\(container)/items/\(item)/link", body: nil, limit: 1 << 16)
  }
}
