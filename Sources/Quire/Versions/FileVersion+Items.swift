import Foundation
import Synchronization

extension FileVersion {
  private static let registered = Mutex<[any VersionStore]>([])

  /// Adds a store: the versions of the items it keeps come from it (the last registered first).
  public static func register(_ store: any VersionStore) {
    registered.withLock { $0.insert(store, at: 0) }
  }

  /// The store that keeps the versions of the item at `url`, if any.
  public static func store(for url: URL) -> (any VersionStore)? {
    registered.withLock { stores in stores.first { $0.keepsVersions(of: url) } }
  }

  /// The document's current version; nil if there is nothing at `url`.
  public static func currentVersionOfItem(at url: URL, store: (any VersionStore)? = nil)
    async throws -> FileVersion?
  {
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    if let store = store ?? Self.store(for: url),
      let current = try await store.versions(of: url).first(where: \.isCurrent)
    {
      return FileVersion(item: url, record: current, store: store)
    }
    let modified =
      (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date
    return FileVersion(
      item: url,
      record: VersionRecord(
        identifier: "current", modificationDate: modified,
        deviceName: ProcessInfo.processInfo.hostName, isCurrent: true, hasLocalContents: true),
      store: nil)
  }

  /// Every version of the document but the current one, newest first: older saves and
  /// conflict versions.
  public static func otherVersionsOfItem(at url: URL, store: (any VersionStore)? = nil)
    async throws -> [FileVersion]
  {
    guard let store = store ?? Self.store(for: url) else { return [] }
    return try await store.versions(of: url).filter { !$0.isCurrent }.map {
      FileVersion(item: url, record: $0, store: store)
    }
  }

  /// The conflict versions no one has resolved yet, newest first.
  public static func unresolvedConflictVersionsOfItem(
    at url: URL, store: (any VersionStore)? = nil
  ) async throws -> [FileVersion] {
    try await otherVersionsOfItem(at: url, store: store).filter { $0.isConflict && !$0.isResolved }
  }

  /// Removes every version of the document but the current one, which frees their space.
  public static func removeOtherVersionsOfItem(at url: URL, store: (any VersionStore)? = nil)
    async throws
  {
    guard let store = store ?? Self.store(for: url) else { return }
    let others = try await store.versions(of: url).filter { !$0.isCurrent }
    if !others.isEmpty { try await store.remove(others, item: url) }
  }
}
