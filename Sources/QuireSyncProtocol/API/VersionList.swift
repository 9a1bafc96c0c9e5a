/// `GET /v1/containers/{container}/items/{item}/versions`: an item's current revision and its
/// other versions, newest first (deletions are not versions).
public struct VersionList: Codable, Sendable, Equatable {
  /// The item's current revision.
  public var current: Int64
  /// Every version, the current one included, newest first.
  public var versions: [VersionInfo]
  /// The WebDAV lock that holds the item (or one of its members) now, if any: the item is
  /// "locked by" its owner. Absent from servers before WebDAV.
  public var lock: DocumentLock?

  /// A list.
  public init(current: Int64, versions: [VersionInfo], lock: DocumentLock? = nil) {
    self.current = current
    self.versions = versions
    self.lock = lock
  }

  /// The conflict revisions no one has resolved yet.
  public var unresolvedConflicts: [VersionInfo] {
    versions.filter { $0.conflict && !$0.resolved }
  }
}
