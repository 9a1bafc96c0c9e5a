import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One coordinated access from start to end:
///
/// 0. a document to read that is only a ``CloudPlaceholder`` is downloaded by its folder's
///    ``FileProvider`` (no lock is held: the download is a coordinated write of its own);
/// 1. presenters that must save (before a read, or a merging write) are asked to, before any
///    lock is taken — their save is itself a coordinated write, which must not wait for us;
/// 2. the locks of every intent are taken (see ``CoordinationLock``);
/// 3. presenters relinquish the items (or accommodate their deletion);
/// 4. the accessor runs (the caller does that between ``begin()`` and ``end()``);
/// 5. presenters are told what changed, reacquirers run, and the locks are released.
final class CoordinatedAccess {
  private struct Item {
    var intent: FileAccessIntent
    var path: String
    var existed: Bool
  }

  private var items: [Item]
  private let messenger: PresenterMessenger
  private let isCancelled: () -> Bool
  private let downloadTimeout: Duration
  private let downloadProgress: DownloadProgress?
  private var lock: CoordinationLock?
  private var uploads: [URL] = []
  /// The presenters concerned by each item, looked up once per access: asked to save, to
  /// relinquish, and told of the change. One registered during the access comes after it, and
  /// its own coordinated read waits for this access's locks.
  private var found: [Int: [PresenterMatch]] = [:]

  init(
    _ intents: [FileAccessIntent], presenter: (any FilePresenter)?,
    downloadTimeout: Duration = .seconds(120), downloadProgress: DownloadProgress? = nil,
    isCancelled: @escaping () -> Bool
  ) {
    self.downloadTimeout = downloadTimeout
    self.downloadProgress = downloadProgress
    items = intents.map { intent in
      var resolve = false
      if case .reading(let options) = intent.access, options.contains(.resolvesSymbolicLink) {
        resolve = true
      }
      let path = CoordinationRuntime.canonicalPath(intent.url, resolvingLastLink: resolve)
      return Item(intent: intent, path: path, existed: access(path, F_OK) == 0)
    }
    messenger = PresenterMessenger(excluding: presenter)
    self.isCancelled = isCancelled
  }

  /// Steps 1 to 3; returns the URLs the accessor must use, one per intent.
  func begin() throws(QuireError) -> [URL] {
    for index in items.indices where needsDownload(items[index]) {
      try download(items[index])
      items[index].existed = true
    }
    for index in items.indices where needsSave(items[index]) {
      messenger.send(matches(index).filter { $0.relation != .container }) {
        PresenterMessage(kind: .save, presenter: $0.number)
      }
    }
    lock = try CoordinationLock(lockRequests(), isCancelled: isCancelled)
    for index in items.indices { relinquish(index) }
    return try accessorURLs()
  }

  /// Steps 1 to 3 on the caller's thread when none of them can wait: nothing to download or
  /// archive, no presenter concerned (so no message to send or answer to await), and every
  /// lock free at the first try. Returns `nil`, having taken nothing, otherwise; ``begin()`` then does the
  /// steps where waiting is allowed. An uncontended save saves the two thread switches a
  /// worker thread costs, most of what a coordination adds to it.
  func beginWithoutWaiting() throws(QuireError) -> [URL]? {
    guard !items.contains(where: { needsDownload($0) || isForUploading($0) }),
      items.indices.allSatisfy({ matches($0).isEmpty })
    else {
      found = [:]  // looked up again by ``begin()``, as late as it can
      return nil
    }
    do {
      // Told it is cancelled at its first contention, the lock gives up instead of waiting.
      lock = try CoordinationLock(lockRequests()) { true }
    } catch let error where error.code == .cancelled {
      // A presenter may register while ``begin()`` waits for the lock: it looks them up again.
      found = [:]
      return nil
    }
    return try accessorURLs()
  }

  /// The lock requests of every item, for ``CoordinationLock``.
  private func lockRequests() -> [CoordinationLock.Request] {
    // One inner byte for the whole access: its writers inside one folder share it.
    let innerByte = Int64.random(in: 0..<CoordinationLock.innerLength)
    return items.flatMap {
      CoordinationLock.requests(for: $0.path, exclusive: $0.intent.isWriting, innerByte: innerByte)
    }
  }

  /// The URLs the accessor uses, one per item; ends the access if one cannot be made.
  private func accessorURLs() throws(QuireError) -> [URL] {
    var urls: [URL] = []
    do throws(QuireError) {
      for item in items { urls.append(try accessorURL(for: item)) }
    } catch {
      end()
      throw error
    }
    return urls
  }

  /// Step 5.
  func end() {
    for upload in uploads {
      try? FileManager.default.removeItem(at: upload.deletingLastPathComponent())
    }
    uploads = []
    for index in items.indices where items[index].intent.isWriting { announce(index) }
    messenger.finish()
    lock = nil
  }

  /// Tells presenters that `old` moved to `new` (``FileCoordinator/item(at:didMoveTo:)``).
  /// Tells the presenters of the item at `url` (in every process) that it gained, lost or
  /// resolved the version `version`.
  static func announceVersion(
    _ kind: PresenterMessage.Kind, of url: URL, version: String,
    excluding presenter: (any FilePresenter)?
  ) {
    let messenger = PresenterMessenger(excluding: presenter)
    messenger.send(messenger.matches(of: CoordinationRuntime.canonicalPath(url))) { match in
      match.relation == .same
        ? PresenterMessage(kind: kind, presenter: match.number, version: version) : nil
    }
    messenger.finish()
  }

  static func announceMove(from old: URL, to new: URL, excluding presenter: (any FilePresenter)?) {
    let oldPath = CoordinationRuntime.canonicalPath(old)
    let newPath = CoordinationRuntime.canonicalPath(new)
    let messenger = PresenterMessenger(excluding: presenter)
    if let presenter, let number = PresenterRegistry.shared.number(of: presenter),
      presenter.presentedItemURL.map({ CoordinationRuntime.canonicalPath($0) }) == newPath
    {
      PresenterRegistry.shared.move(number, to: newPath)
    }
    let oldMatches = messenger.matches(of: oldPath)
    messenger.send(oldMatches) { match in
      switch match.relation {
      case .same:
        return PresenterMessage(kind: .didMove, presenter: match.number, path: newPath)
      case .inside:
        let moved = newPath + match.presentedPath.dropFirst(oldPath.count)
        return PresenterMessage(kind: .didMove, presenter: match.number, path: moved)
      case .container:
        return PresenterMessage(
          kind: .subitemMoved, presenter: match.number, path: oldPath, newPath: newPath)
      }
    }
    let toldContainers = Set(
      oldMatches.filter { $0.relation == .container }.map { "\($0.owner ?? "")/\($0.number)" })
    messenger.send(messenger.matches(of: newPath)) { match in
      guard match.relation == .container,
        !toldContainers.contains("\(match.owner ?? "")/\(match.number)")
      else { return nil }
      return PresenterMessage(
        kind: .subitemMoved, presenter: match.number, path: oldPath, newPath: newPath)
    }
    messenger.finish()
  }

  /// Whether `item` is a document to read that is only a placeholder here (one `access` call,
  /// made only when the item is missing).
  private func needsDownload(_ item: Item) -> Bool {
    guard !item.existed, case .reading(let options) = item.intent.access,
      !options.contains(.immediatelyAvailableMetadataOnly)
    else { return false }
    let placeholder = CloudPlaceholder.url(for: URL(fileURLWithPath: item.path))
    return access(placeholder.path, F_OK) == 0
  }

  /// Asks the providers of the folders holding `item` to bring it here, and waits.
  private func download(_ item: Item) throws(QuireError) {
    let errors = messenger.send(
      messenger.matches(of: item.path).filter { $0.relation == .container },
      timeout: downloadTimeout, isCancelled: isCancelled, progress: downloadProgress
    ) { PresenterMessage(kind: .provide, presenter: $0.number, path: item.path) }
    if access(item.path, F_OK) == 0 { return }
    if isCancelled() {
      throw QuireError(
        .cancelled, "The download of “\(item.path)” was cancelled.", path: item.path)
    }
    let why =
      errors.first
      ?? "no sync agent answered for its folder in time; check that quire sync run is running"
    throw QuireError(
      .notDownloaded,
      "“\(item.path)” is in the cloud and could not be downloaded: \(why). Its placeholder stays; try again later.",
      path: item.path)
  }

  /// Whether `item` is read for uploading: a package is then archived first, long work that
  /// belongs on a worker thread.
  private func isForUploading(_ item: Item) -> Bool {
    if case .reading(let options) = item.intent.access {
      options.contains(.forUploading)
    } else {
      false
    }
  }

  private func needsSave(_ item: Item) -> Bool {
    switch item.intent.access {
    case .reading(let options):
      options.isDisjoint(with: [.withoutChanges, .immediatelyAvailableMetadataOnly])
    case .writing(let options): options.contains(.forMerging)
    }
  }

  /// The presenters concerned by item `index`, looked up on first use.
  private func matches(_ index: Int) -> [PresenterMatch] {
    if let known = found[index] { return known }
    let matches = messenger.matches(of: items[index].path)
    found[index] = matches
    return matches
  }

  private func relinquish(_ index: Int) {
    let item = items[index]
    let matches = matches(index)
    switch item.intent.access {
    case .reading(let options):
      guard !options.contains(.immediatelyAvailableMetadataOnly) else { return }
      messenger.send(matches.filter { $0.relation != .container }) {
        PresenterMessage(kind: .relinquishToReader, presenter: $0.number)
      }
    case .writing(let options):
      if options.contains(.forDeleting) {
        messenger.send(matches) { match in
          match.relation == .container
            ? PresenterMessage(
              kind: .accommodateSubitemDeletion, presenter: match.number, path: item.path)
            : PresenterMessage(kind: .accommodateDeletion, presenter: match.number)
        }
      } else if !options.contains(.contentIndependentMetadataOnly) {
        messenger.send(matches.filter { $0.relation != .container }) {
          PresenterMessage(kind: .relinquishToWriter, presenter: $0.number)
        }
      }
    }
  }

  private func announce(_ index: Int) {
    let item = items[index]
    let exists = access(item.path, F_OK) == 0
    messenger.send(matches(index)) { match in
      switch match.relation {
      case .same where exists: PresenterMessage(kind: .didChange, presenter: match.number)
      case .container:
        PresenterMessage(
          kind: exists && !item.existed ? .subitemAppeared : .subitemChanged,
          presenter: match.number, path: item.path)
      default: nil
      }
    }
  }

  private func accessorURL(for item: Item) throws(QuireError) -> URL {
    let url = URL(fileURLWithPath: item.path)
    guard case .reading(let options) = item.intent.access, options.contains(.forUploading) else {
      return url
    }
    var info = stat()
    guard stat(item.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return url }
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("quire-upload-\(UUID().uuidString)")
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .ioError, "Could not make a folder for the archive of “\(item.path)”: \(error).",
        path: folder.path, cause: error)
    }
    let archive = folder.appendingPathComponent(url.lastPathComponent + ".zip")
    uploads.append(archive)
    try PackageArchive.export(url, to: archive)
    return archive
  }
}
