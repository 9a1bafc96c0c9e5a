import Foundation
import Quire
import QuireSyncProtocol

/// A synced folder's versions, kept by the Quire Sync server: every revision a device synced,
/// merges, and conflict versions. ``Quire/FileVersion`` presents them, as NSFileVersion presents
/// iCloud's.
///
/// ```swift
/// FileVersion.register(SyncVersionStore(folder: library))
/// let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: url)
/// ```
///
/// A version other than the current one is downloaded, the first time its contents are asked
/// for, into `$XDG_CACHE_HOME/quire/versions` (whole: a version is read rarely, and then all of
/// it). Resolving, removing and restoring act on the server, so every device sees the result.
public struct SyncVersionStore: VersionStore {
  /// The synced folder.
  public let folder: URL
  /// The device's sign-in.
  public let settingsFile: URL
  /// Where downloaded versions are kept.
  public let cache: URL

  /// The store of `folder`'s versions, reached through the sign-in at `settingsFile`.
  public init(
    folder: URL, settingsFile: URL = SyncSettings.defaultLocation, cache: URL? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) {
    self.folder = folder.standardizedFileURL
    self.settingsFile = settingsFile
    let base =
      environment["XDG_CACHE_HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
    self.cache = cache ?? base.appendingPathComponent("quire/versions")
  }

  /// Whether `url` is in the synced folder and this device is signed in.
  public func keepsVersions(of url: URL) -> Bool {
    url.standardizedFileURL.path.hasPrefix(folder.path + "/")
      && FileManager.default.fileExists(atPath: settingsFile.path)
  }

  /// Every version of the document at `url` on the server, newest first.
  public func versions(of url: URL) async throws -> [VersionRecord] {
    let (client, item) = try syncedItem(at: url)
    let list = try await client.versions(item: item)
    return list.versions.map { version in
      let current = version.revision == list.current
      return VersionRecord(
        identifier: String(version.revision),
        modificationDate: Date(timeIntervalSince1970: version.modified ?? version.committed),
        deviceName: version.deviceName, isCurrent: current, isConflict: version.conflict,
        isResolved: version.resolved,
        hasLocalContents: current
          || FileManager.default.fileExists(
            atPath: cached(item, version.revision, url.lastPathComponent).path),
        lockOwner: version.lockedBy
      )
    }
  }

  /// The WebDAV lock that holds the document now, if any: it is "locked by" the lock's owner,
  /// and this device's changes to it are kept as conflict versions until the lock ends.
  public func lock(of url: URL) async throws -> DocumentLock? {
    let (client, item) = try syncedItem(at: url)
    return try await client.versions(item: item).lock
  }

  /// The version's contents, downloaded into the cache the first time.
  public func contents(of version: VersionRecord, item url: URL) async throws -> URL {
    let (client, item) = try syncedItem(at: url)
    let revision = try number(version)
    let destination = cached(item, revision, url.lastPathComponent)
    if FileManager.default.fileExists(atPath: destination.path) { return destination }
    let manifest = try await client.manifest(item: item, revision: revision)
    let chunks = try await client.fetchChunks(
      Array(Set(manifest.change.upserted.flatMap { $0.chunks.map(\.hash) })))
    let staging = destination.deletingLastPathComponent().appendingPathComponent(
      ".quire-version-\(UUID().uuidString)")
    try FileManager.default.createDirectory(
      at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: staging) }
    if manifest.kind == .package {
      try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: false)
    }
    for member in manifest.change.upserted {
      if manifest.kind == .package { try SyncPath.check(member.path, what: "member path") }
      let file = member.path.isEmpty ? staging : staging.appendingPathComponent(member.path)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      var bytes: [UInt8] = []
      bytes.reserveCapacity(member.size)
      for piece in member.chunks {
        guard let chunk = chunks[piece.hash] else {
          throw SyncError(.notFound, "The server did not send chunk \(piece.hash) of \(url.path).")
        }
        bytes += chunk
      }
      try Data(bytes).write(to: file)
      try FileManager.default.setAttributes(
        [
          .posixPermissions: Int(member.permissions),
          .modificationDate: Date(timeIntervalSince1970: member.safeModified),
        ],
        ofItemAtPath: file.path)
    }
    try FileManager.default.moveItem(at: staging, to: destination)
    return destination
  }

  /// Marks the conflict versions resolved (or not) on the server.
  public func setResolved(_ resolved: Bool, _ versions: [VersionRecord], item url: URL)
    async throws
  {
    let (client, item) = try syncedItem(at: url)
    _ = try await client.resolve(
      item: item, revisions: try versions.map { try number($0) }, resolved: resolved)
  }

  /// Removes the versions on the server (and their downloaded copies).
  public func remove(_ versions: [VersionRecord], item url: URL) async throws {
    let (client, item) = try syncedItem(at: url)
    let numbers = try versions.map { try number($0) }
    _ = try await client.removeVersions(item: item, revisions: numbers)
    for revision in numbers {
      try? FileManager.default.removeItem(
        at: cached(item, revision, url.lastPathComponent).deletingLastPathComponent())
    }
  }

  /// Makes the version's contents the current ones: a new revision every device syncs.
  public func restore(_ version: VersionRecord, item url: URL) async throws {
    let (client, item) = try syncedItem(at: url)
    _ = try await client.restore(item: item, revision: try number(version))
  }

  /// A client of the server that syncs `url`, and the document's item identity there; an
  /// `unauthorized` error if this device is not signed in, `notFound` if `url` was never synced.
  public func syncedItem(at url: URL) throws -> (client: SyncClient, item: String) {
    let client = try client(for: url)
    guard let item = ItemIdentity.stored(at: url) else {
      throw SyncError(
        .notFound, "“\(url.path)” has not been synced yet: it has no versions on the server.")
    }
    return (client, item)
  }

  /// A client of the server this device syncs with; an `unauthorized` error naming `url` if
  /// this device is not signed in.
  public func client(for url: URL) throws -> SyncClient {
    guard let settings = try SyncSettings.load(from: settingsFile) else {
      throw SyncError(
        .unauthorized,
        "This device is not signed in, so “\(url.path)” is not synced: run quire sync login URL --user NAME."
      )
    }
    return SyncClient(
      server: settings.server, token: settings.token, container: settings.container,
      http: try TrustedHTTPClient.trusting(settings.certificateAuthority))
  }

  private func number(_ version: VersionRecord) throws(SyncError) -> Int64 {
    guard let number = Int64(version.identifier) else {
      throw SyncError(.malformed, "“\(version.identifier)” is not a version of a synced document.")
    }
    return number
  }

  private func cached(_ item: String, _ revision: Int64, _ name: String) -> URL {
    cache.appendingPathComponent("\(item)/\(revision)/\(name)")
  }
}
