import Foundation

/// The documents the user opened, most recent first: capped, without duplicates, kept as
/// ``Bookmark``s (never as paths, so they survive renames and moves), persisted, and pruned of
/// documents that no longer resolve. It also remembers the last open document, for restoring
/// state at the next launch.
///
/// Several processes may share one store: each change is a locked read-modify-write of the
/// store, written with a safe-save.
public final class RecentDocuments: Sendable {
  private struct Store: Codable {
    var entries: [Data] = []
    var lastOpen: Data?
  }

  /// The store in `$XDG_DATA_HOME/quire/recents.json` (or `~/.local/share/quire/recents.json`).
  public static let shared = RecentDocuments(storeURL: defaultStoreURL)

  /// Where the list is kept.
  public let storeURL: URL
  /// The most documents kept.
  public let capacity: Int

  /// A list kept at `storeURL`, holding at most `capacity` documents.
  public init(storeURL: URL, capacity: Int = 20) {
    self.storeURL = storeURL.standardizedFileURL
    self.capacity = capacity
  }

  static var defaultStoreURL: URL { XDGDirectory.data.appendingPathComponent("recents.json") }

  /// Records that the document at `url` was opened: it moves to the front and becomes the last
  /// open document.
  public func noteOpened(_ url: URL) throws(QuireError) {
    let bookmark = try Bookmark(url: url)
    try update { store, _ in
      store.entries.removeAll { Self.sameDocument($0, bookmark) }
      store.entries.insert(bookmark.data, at: 0)
      store.entries = Array(store.entries.prefix(capacity))
      store.lastOpen = bookmark.data
    }
  }

  /// Records that no document is open now (the next launch restores none).
  public func noteAllClosed() throws(QuireError) {
    try update { store, _ in store.lastOpen = nil }
  }

  /// The recent documents where they are now, most recent first. Those that no longer resolve
  /// (even searching `scopes`) are dropped from the store; stale bookmarks are renewed.
  public func documents(searching scopes: [URL] = []) throws(QuireError) -> [URL] {
    var urls: [URL] = []
    try update { store, _ in
      var kept: [Data] = []
      urls = []
      for data in store.entries {
        guard let bookmark = try? Bookmark(data: data),
          let found = try? bookmark.resolve(searching: scopes)
        else {
          continue
        }
        let renewed = found.isStale ? (try? Bookmark(url: found.url))?.data ?? data : data
        kept.append(renewed)
        urls.append(found.url)
      }
      store.entries = kept
    }
    return urls
  }

  /// The document open when the app last stopped, if it still resolves.
  public func lastOpenDocument(searching scopes: [URL] = []) -> URL? {
    guard let data = (try? load())?.lastOpen, let bookmark = try? Bookmark(data: data) else {
      return nil
    }
    return try? bookmark.resolve(searching: scopes).url
  }

  /// Removes the document at `url` from the list.
  public func remove(_ url: URL) throws(QuireError) {
    let bookmark = try Bookmark(url: url)
    try update { store, _ in store.entries.removeAll { Self.sameDocument($0, bookmark) } }
  }

  private static func sameDocument(_ data: Data, _ bookmark: Bookmark) -> Bool {
    guard let other = try? Bookmark(data: data) else { return true }  // drop unreadable entries
    return other.identity == bookmark.identity
  }

  private func load() throws(QuireError) -> Store {
    guard let data = try? Data(contentsOf: storeURL) else { return Store() }
    return (try? JSONDecoder().decode(Store.self, from: data)) ?? Store()
  }

  /// Changes the store under an exclusive lock on its folder, then safe-saves it.
  private func update(_ change: (inout Store, URL) throws(QuireError) -> Void) throws(QuireError) {
    let folder = storeURL.deletingLastPathComponent()
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .ioError, "Could not create “\(folder.path)” for the recent documents.", path: folder.path,
        cause: error)
    }
    let lock: PackageLock
    do throws(SystemCallError) { lock = try PackageLock(path: folder.path, exclusive: true) } catch
    {
      throw QuireError.system(error, action: "update the recent documents in", path: folder.path)
    }
    defer { lock.release() }
    var store = try load()
    try change(&store, storeURL)
    let data = (try? JSONEncoder().encode(store)) ?? Data()
    try FileWrapper(regularFileWithContents: data).write(to: storeURL)
  }
}
