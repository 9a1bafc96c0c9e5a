import Foundation

/// The versions of documents that are not synced, kept on this device: the role of the macOS
/// version store behind "Browse All Versions". ``FileVersion`` presents them with the same API
/// as a synced document's.
///
/// ```swift
/// FileVersion.register(LocalVersionStore())   // every document, unless a later store keeps it
/// ```
///
/// Once a store is registered, each save of a ``Document`` first keeps the contents it
/// replaces as a version. Versions live under `$XDG_DATA_HOME/quire/versions`, one folder per
/// document identity (so a version list survives renames and moves): a JSON manifest per
/// version and a blob per member's bytes. A ``Document``'s saves pass what they changed
/// (``recordVersion(of:changes:)``): the version is then stored as that change from the one
/// before it, and only the changed members are looked at and copied, so keeping a version
/// costs what the save changed, whatever the package's size. Without that knowledge (the first
/// save after a document loads), every member is looked at, and a member whose stat did not
/// change since the last version reuses that version's blob.
///
/// History thins with age by ``thinning``; removing a version (or thinning it away) frees the
/// blobs no remaining version names once they are older than ``gracePeriod``.
public struct LocalVersionStore: VersionStore {
  /// The folder whose documents it keeps versions of; nil for every document.
  public let folder: URL?
  /// Where the versions are kept.
  public let directory: URL
  /// Which versions history keeps as they age.
  public let thinning: VersionThinning
  /// How old a blob no version names must be before it is removed.
  public let gracePeriod: Duration
  /// The name of this device, recorded with each version.
  public let deviceName: String
  /// Where a version is written out to be read (by default
  /// `$XDG_CACHE_HOME/quire/local-versions`).
  public let cache: URL
  let now: @Sendable () -> Date

  /// A store of the versions of the documents in `folder` (nil: every document), kept in
  /// `directory` (by default `$XDG_DATA_HOME/quire/versions`), read through `cache`. `now` gives the time thinning
  /// measures ages from (tests pass their own clock).
  public init(
    folder: URL? = nil, directory: URL? = nil, thinning: VersionThinning = .standard,
    gracePeriod: Duration = .seconds(3600),
    deviceName: String = ProcessInfo.processInfo.hostName, cache: URL? = nil,
    now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.folder = folder?.standardizedFileURL
    self.directory =
      (directory ?? XDGDirectory.data.appendingPathComponent("versions"))
      .standardizedFileURL
    self.thinning = thinning
    self.gracePeriod = gracePeriod
    self.deviceName = deviceName
    self.cache = cache ?? XDGDirectory.cache.appendingPathComponent("local-versions")
    self.now = now
  }

  /// Whether `url` is in ``folder`` (any document when it is nil), and not in the store itself.
  public func keepsVersions(of url: URL) -> Bool {
    let path = url.standardizedFileURL.path
    if path.hasPrefix(directory.path + "/") { return false }
    guard let folder else { return true }
    return path.hasPrefix(folder.path + "/")
  }

  /// The document's current version (what is on disk) and its kept versions, newest first.
  public func versions(of url: URL) async throws -> [VersionRecord] {
    let current = try walk(url)
    let modified = Self.contentsModified(current)
    var records = [
      VersionRecord(
        identifier: "current", modificationDate: modified, deviceName: deviceName,
        isCurrent: true, hasLocalContents: true)
    ]
    guard let identity = ItemIdentity.stored(at: url) else { return records }
    // Oldest first, each version put together from the one before it: a version stored as a
    // change costs only that change here.
    var tree: LocalVersionTree?
    var previous: String?
    var listed: [VersionRecord] = []
    for (name, manifest) in try manifests(of: identity).reversed() {
      if tree != nil, manifest.base != nil, manifest.base == previous {
        tree!.apply(manifest)  // in place: a copy would cost the whole tree per version
      } else if manifest.base == nil {
        tree = LocalVersionTree(manifest)
      } else if let whole = try? self.manifest(name, of: identity, item: url) {
        tree = LocalVersionTree(whole)
      } else {
        // A change from a version lost to a power cut cannot be put together: left out.
        (tree, previous) = (nil, nil)
        continue
      }
      previous = name
      listed.append(
        VersionRecord(
          identifier: name, modificationDate: manifest.saved, deviceName: manifest.device,
          isCurrent: false, hasLocalContents: true, hasThumbnail: tree?.hasThumbnail ?? false))
    }
    listed.reverse()
    if let newest = tree?.ordered,
      LocalVersionManifest(saved: Date(), device: "", isPackage: true, members: newest).describes(
        current,
        sameBytes: { member in
          sameBytes(
            member.path.isEmpty ? url.path : url.path + "/" + member.path, as: member,
            of: identity)
        })
    {
      records[0].identifier = listed.removeFirst().identifier
    }
    return records + listed
  }

  /// The version's contents, written out once into ``cache``.
  public func contents(of version: VersionRecord, item url: URL) async throws -> URL {
    let identity = try identity(of: url)
    let manifest = try manifest(version.identifier, of: identity, item: url)
    let destination = cache.appendingPathComponent(
      "\(identity)/\(version.identifier)/\(url.lastPathComponent)")
    if FileManager.default.fileExists(atPath: destination.path) { return destination }
    let folder = destination.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let staging = folder.appendingPathComponent(".quire-version-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: staging) }
    try materialize(manifest, of: identity, at: staging, keepingTimes: true)
    try FileManager.default.moveItem(at: staging, to: destination)
    return destination
  }

  /// Local versions are never conflicts: there is nothing to mark.
  public func setResolved(_ resolved: Bool, _ versions: [VersionRecord], item url: URL)
    async throws
  {}

  /// Removes the versions and frees the blobs no remaining version names.
  public func remove(_ versions: [VersionRecord], item url: URL) async throws {
    let identity = try identity(of: url)
    try withLock(identity) {
      let names = Set(versionNames(of: identity))
      try removeVersions(
        Set(versions.filter { !$0.isCurrent }.map(\.identifier)).intersection(names),
        of: identity)
      try collectGarbage(of: identity)
    }
  }

  /// Makes the version's contents the document's current ones, inside a coordinated write (an
  /// open document reloads); the contents it replaces are kept as a version first.
  public func restore(_ version: VersionRecord, item url: URL) async throws {
    let identity = try identity(of: url)
    let manifest = try manifest(version.identifier, of: identity, item: url)
    let staging = url.deletingLastPathComponent().appendingPathComponent(
      ".quire-restore-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: staging) }
    try materialize(manifest, of: identity, at: staging, keepingTimes: false)
    try ItemIdentity.assign(identity, to: staging)
    try await FileCoordinator().coordinate(with: [.writingIntent(with: url, options: .forReplacing)]
    ) { urls in
      try await self.recordVersion(of: urls[0])
      if manifest.isPackage {
        try Sys.exchange(staging.path, urls[0].path)  // the replaced copy goes with the staging
      } else {
        try Sys.rename(staging.path, urls[0].path)  // a flat file is replaced in one rename
      }
    }
  }

  /// Keeps what is at `url` as a version, unless the newest version already holds it; then
  /// thins the document's history. It looks at every member: see
  /// ``recordVersion(of:changes:)`` for what a document's saves call.
  public func recordVersion(of url: URL) async throws {
    _ = try await recordVersion(of: url, changes: nil)
  }

  /// Keeps what is at `url` as a version, then thins the document's history, and returns the
  /// newest version's name. When `changes` counts from the newest kept version and the
  /// document is a package, only the members it names are looked at and copied, and the
  /// version is stored as that change: the cost of what the saves changed, whatever the
  /// package's size. Otherwise every member is looked at (each unchanged one costs a stat).
  public func recordVersion(of url: URL, changes: VersionChanges?) async throws -> String? {
    guard let root = try Sys.status(url.path) else { return nil }
    let identity = try ItemIdentity.of(url)
    return try withLock(identity) {
      let names = versionNames(of: identity)
      let newest = names.first
      if let changes, let newest, changes.version == newest, root.st_mode & S_IFMT == S_IFDIR {
        guard !changes.members.isEmpty else { return newest }
        let change = try change(of: url, identity: identity, changed: changes.members, base: newest)
        let name = try write(change, of: identity, after: newest)
        try thin(identity, names: [name] + names)
        return name
      }
      // (A newest version that cannot be read is not reused: every member is copied.)
      let previous = newest.flatMap { try? manifest($0, of: identity, item: url) }
      let recorded = try snapshot(url, identity: identity, reusing: previous)
      if let newest, let previous, previous.sameContents(as: recorded) {
        try collectGarbage(of: identity)  // blobs copied needlessly (a member only touched)
        return newest
      }
      let name = try write(recorded, of: identity, after: newest)
      try thin(identity, names: [name] + names)
      return name
    }
  }

  static func date(_ time: timespec) -> Date {
    Date(timeIntervalSince1970: TimeInterval(time.tv_sec) + TimeInterval(time.tv_nsec) / 1e9)
  }

  func identity(of url: URL) throws -> String {
    guard let identity = ItemIdentity.stored(at: url) else {
      throw QuireError(
        .notFound, "“\(url.path)” has no kept versions: none was saved since versions were on.",
        path: url.path)
    }
    return identity
  }
}
