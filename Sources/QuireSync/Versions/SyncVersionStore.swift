import Foundation
import Quire
import QuireCore
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
    self.cache =
      cache
      ?? XDGBase.cache.folder(environment: environment).appendingPathComponent("quire/versions")
  }

  /// Whether `url` is in the synced folder and this device is signed in.
  public func keepsVersions(of url: URL) -> Bool {
    url.standardizedFileURL.path.hasPrefix(folder.path + "/")
      && (try? Sys.exists(settingsFile.path, followLinks: true)) == true
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
          || (try? Sys.exists(cached(item, version.revision, url.lastPathComponent).path)) == true,
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
    if try Sys.exists(destination.path) { return destination }
    let manifest = try await client.manifest(item: item, revision: revision)
    let chunks = try await client.fetchChunks(
      Array(Set(manifest.change.upserted.flatMap { $0.chunks.map(\.hash) })))
    do {
      try Self.place(manifest, chunks: chunks, of: url, at: destination)
    } catch let error as SystemCallError {
      throw SyncError(
        .unavailable,
        "Could not keep a version of “\(url.path)” in “\(cache.path)”: \(error.reason). Check the free space.",
        cause: error)
    }
    return destination
  }

  /// Writes the version `manifest` of the document at `url`, of which `chunks` holds every
  /// chunk, at `destination`: made under a hidden name beside it, then renamed into place.
  private static func place(
    _ manifest: RevisionManifest, chunks: [ContentHash: [UInt8]], of url: URL, at destination: URL
  ) throws {
    let staging = destination.deletingLastPathComponent().appendingPathComponent(
      ".quire-version-\(UUID().uuidString)")
    try Sys.makeFolders(destination.deletingLastPathComponent().path)
    defer { try? Sys.removeTree(staging.path) }
    if manifest.kind == .package { try Sys.mkdir(staging.path) }
    for member in manifest.change.upserted {
      if manifest.kind == .package { try SyncPath.check(member.path, what: "member path") }
      let file = member.path.isEmpty ? staging : staging.appendingPathComponent(member.path)
      try Sys.makeFolders(file.deletingLastPathComponent().path)
      var bytes: [UInt8] = []
      bytes.reserveCapacity(member.size)
      for piece in member.chunks {
        guard let chunk = chunks[piece.hash] else {
          throw SyncError(.notFound, "The server did not send chunk \(piece.hash) of \(url.path).")
        }
        bytes += chunk
      }
      try Self.write(bytes, of: member, to: file.path)
    }
    // A copy of the cache, not a document: no fsync. Another reader that cached it meanwhile
    // has put the same bytes there.
    try? Sys.move(staging.path, to: destination.path)
    guard try Sys.exists(destination.path) else {
      throw SystemCallError(call: "rename", errno: ENOENT)
    }
  }

  /// Writes `bytes`, a version's `member`, as a new file at `path` with its mode and time.
  private static func write(_ bytes: [UInt8], of member: ManifestMember, to path: String) throws {
    let fd = try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: mode_t(member.permissions))
    defer { Sys.close(fd) }
    try bytes.withUnsafeBytes { try Sys.write(fd, $0) }
    try Sys.chmod(fd, mode_t(member.permissions))
    try Sys.setModificationTime(of: fd, Date(timeIntervalSince1970: member.safeModified).timespec)
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
      try? Sys.removeTree(
        cached(item, revision, url.lastPathComponent).deletingLastPathComponent().path)
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
