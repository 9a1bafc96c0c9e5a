import Foundation

/// A lasting reference to a document — the role of URL bookmark data: made from a URL, saved as
/// opaque `Data`, and resolved later (in this process or another) to wherever the document is
/// now, after renames, moves and safe-saves.
///
/// A bookmark records the document's identity (its `user.quire.id` attribute, which Quire's saves
/// keep; created when first needed) and its last path. Resolving checks the last path, then
/// searches the folder it was in and the `scopes` given; finding it elsewhere says the bookmark
/// is stale and should be made again.
public struct Bookmark: Sendable, Hashable {
  private struct Record: Codable, Hashable {
    var version: Int
    var identity: String
    var path: String
  }

  /// Where a bookmark led.
  public struct Resolution: Sendable, Hashable {
    /// The document's current URL.
    public var url: URL
    /// Whether the document was found somewhere other than its recorded path: make a new
    /// bookmark to keep resolving fast.
    public var isStale: Bool
  }

  private let record: Record

  /// The document's identity, which two bookmarks to the same document share.
  var identity: String { record.identity }

  /// The bookmark as opaque, versioned bytes to store.
  public var data: Data { (try? JSONEncoder().encode(record)) ?? Data() }

  /// A bookmark to the document at `url`, giving it an identity if it has none; a document in
  /// the cloud (a ``CloudPlaceholder``) is bookmarked by the identity its placeholder holds.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/notFound`` if there is no document there.
  public init(url: URL) throws(QuireError) {
    let path = url.standardizedFileURL.path
    if let placeholder = CloudPlaceholder.find(for: URL(fileURLWithPath: path)) {
      record = Record(version: 1, identity: placeholder.identity, path: path)
      return
    }
    record = Record(
      version: 1,
      identity: try DocumentIdentity.identity(of: URL(fileURLWithPath: path), creating: true),
      path: path)
  }

  /// A bookmark from stored bytes.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/corruptDocument`` if they are not a bookmark of a
  ///   version this Quire reads.
  public init(data: Data) throws(QuireError) {
    guard let record = try? JSONDecoder().decode(Record.self, from: data), record.version == 1,
      !record.identity.isEmpty, record.path.hasPrefix("/")
    else {
      throw QuireError(
        .corruptDocument, "These bytes are not a Quire bookmark (or one from a newer version).")
    }
    self.record = record
  }

  /// Finds the document: at its recorded path if it is still the same document, else where
  /// `index` last saw its identity, else in the folder it was in (at that folder's own level: a
  /// rename in place), else anywhere below one of `scopes` (pass the app's folders to follow
  /// moves the index has not seen). A document in the cloud resolves to its real URL (its
  /// placeholder's document), which a coordinated read downloads.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/notFound`` if it is nowhere to be found.
  public func resolve(searching scopes: [URL] = [], index: DocumentIndex? = nil)
    throws(QuireError) -> Resolution
  {
    let recorded = URL(fileURLWithPath: record.path)
    if matches(record.path) { return Resolution(url: recorded, isStale: false) }
    for path in index?.paths(withIdentity: record.identity) ?? [] where matches(path) {
      return Resolution(url: URL(fileURLWithPath: path), isStale: true)
    }
    var searches = [(folder: recorded.deletingLastPathComponent().path, deep: false)]
    searches += scopes.map { ($0.standardizedFileURL.path, true) }
    var visited: Set<String> = []
    for search in searches {
      if let found = find(in: search.folder, deep: search.deep, visited: &visited) {
        return Resolution(url: URL(fileURLWithPath: found), isStale: true)
      }
    }
    throw QuireError(
      .notFound,
      "The document last at “\(record.path)” can no longer be found: it was deleted, or moved outside the folders searched.",
      path: record.path)
  }

  private func matches(_ path: String) -> Bool {
    if let identity = try? DocumentIdentity.identity(
      of: URL(fileURLWithPath: path), creating: false)
    {
      return identity == record.identity
    }
    return CloudPlaceholder.find(for: URL(fileURLWithPath: path))?.identity == record.identity
  }

  /// Looks for the document in `folder` and, when `deep`, below it, skipping hidden folders and
  /// folders already searched.
  private func find(in folder: String, deep: Bool, visited: inout Set<String>) -> String? {
    guard visited.insert(folder + (deep ? "/**" : "")).inserted,
      let entries = try? Sys.listDirectory(at: folder)
    else { return nil }
    var subfolders: [String] = []
    for entry in entries {
      if entry.name.hasPrefix(".") {
        // A document in the cloud: its placeholder stands for it.
        guard CloudPlaceholder.isPlaceholderName(entry.name),
          let document = CloudPlaceholder.documentURL(
            forPlaceholder: URL(fileURLWithPath: folder.appendingPathComponent(entry.name)))
        else { continue }
        if matches(document.path) { return document.path }
        continue
      }
      let path = folder.appendingPathComponent(entry.name)
      if matches(path) { return path }
      if deep && entry.type == UInt8(DT_DIR) { subfolders.append(path) }
    }
    for subfolder in subfolders {
      if let found = find(in: subfolder, deep: true, visited: &visited) { return found }
    }
    return nil
  }
}

#if canImport(Glibc)
  import Glibc
#endif
