/// `GET /v1/containers/{container}/items/{item}/versions`: an item's current revision and its
/// other versions, newest first (deletions are not versions).
public struct VersionList: Codable, Sendable, Equatable {
  /// The item's current revision.
  public var current: Int64
  /// Every version, the current one included, newest first.
  public var versions: [VersionInfo]

  /// A list.
  public init(current: Int64, versions: [VersionInfo]) {
    self.current = current
    self.versions = versions
  }

  /// The conflict revisions no one has resolved yet.
  public var unresolvedConflicts: [VersionInfo] {
    versions.filter { $0.conflict && !$0.resolved }
  }
}
