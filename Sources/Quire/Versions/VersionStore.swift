import Foundation

/// Where the versions of some items are kept: the role of the version store behind
/// NSFileVersion. `QuireSync`'s `SyncVersionStore` keeps a synced folder's versions on the sync
/// server. Register a store with ``FileVersion/register(_:)``, or pass one to ``FileVersion``'s
/// functions.
public protocol VersionStore: Sendable {
  /// Whether this store keeps the versions of the item at `url`.
  func keepsVersions(of url: URL) -> Bool

  /// Every version of the item at `url`, the current one included, newest first.
  func versions(of url: URL) async throws -> [VersionRecord]

  /// A file or package holding `version`'s contents, to read (downloaded first if needed).
  func contents(of version: VersionRecord, item url: URL) async throws -> URL

  /// Marks the conflict versions `versions` resolved (or not).
  func setResolved(_ resolved: Bool, _ versions: [VersionRecord], item url: URL) async throws

  /// Removes `versions` (not the current one): they are no longer listed, and their space is
  /// freed once nothing else refers to it.
  func remove(_ versions: [VersionRecord], item url: URL) async throws

  /// Makes `version`'s contents the item's current ones, as a new version.
  func restore(_ version: VersionRecord, item url: URL) async throws

  /// Keeps what is at `url` as a version: a ``Document`` calls it inside its coordinated write,
  /// before a save replaces the contents.
  func recordVersion(of url: URL) async throws

  /// Keeps what is at `url` as a version, like ``recordVersion(of:)``, told what changed since a
  /// version it kept (nil: nothing is known, and the store looks at every member). Returns the
  /// name of the newest kept version, which now holds what is at `url`, for the next call's
  /// `changes`; nil when the store does not keep versions this way.
  func recordVersion(of url: URL, changes: VersionChanges?) async throws -> String?
}

extension VersionStore {
  /// Keeps what is at `url` as a version before a save replaces it. A store whose versions are
  /// made elsewhere (a sync server's revisions) does nothing, which is the default.
  public func recordVersion(of url: URL) async throws {}

  /// Keeps what is at `url` as a version with ``recordVersion(of:)``, and names none.
  public func recordVersion(of url: URL, changes: VersionChanges?) async throws -> String? {
    try await recordVersion(of: url)
    return nil
  }
}
