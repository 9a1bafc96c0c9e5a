import QuireSyncProtocol

extension SyncClient {
  /// `item`'s current revision and its versions, newest first.
  public func versions(item: String) async throws(SyncError) -> VersionList {
    try await send(.GET, "/v1/containers/\(container)/items/\(item)/versions")
  }

  /// Marks the conflict revisions `revisions` of `item` resolved (or, `resolved` false, not).
  public func resolve(item: String, revisions: [Int64], resolved: Bool = true)
    async throws(SyncError) -> ResolveResponse
  {
    try await send(
      .POST, "/v1/containers/\(container)/items/\(item)/versions/resolve",
      json: ResolveRequest(revisions: revisions, resolved: resolved))
  }

  /// Removes the versions `revisions` of `item` (never its current one).
  public func removeVersions(item: String, revisions: [Int64]) async throws(SyncError)
    -> ResolveResponse
  {
    try await send(
      .POST, "/v1/containers/\(container)/items/\(item)/versions/remove",
      json: VersionSelection(revisions: revisions))
  }

  /// Makes the contents of `revision` of `item` its new current revision.
  public func restore(item: String, revision: Int64) async throws(SyncError) -> CommitResponse {
    try await send(
      .POST, "/v1/containers/\(container)/items/\(item)/versions/\(revision)/restore",
      json: nil as String?)
  }
}
