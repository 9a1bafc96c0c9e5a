import Foundation

/// Loads documents' thumbnails for browsing without ever blocking: the caller gets a placeholder
/// at once and the real thumbnail when it has been read off the caller's actor. Thumbnails are
/// kept in memory up to a byte budget (least recently used go first), over what is on disk: a
/// package's `QuickLook/Thumbnail.png` (or `.svg`), a single file's entry in the
/// ``ThumbnailCache``. A cached thumbnail is used only while the file it came from is unchanged,
/// so a document that changed is never shown with its old look.
public actor ThumbnailLoader {
  private struct Entry {
    var thumbnail: Thumbnail
    var signature: Signature
    var lastUse: UInt64
  }

  /// What identifies one version of a thumbnail file.
  private struct Signature: Hashable {
    var path: String
    var size: Int64
    var modified: Date
  }

  /// Shown until the real thumbnail is ready (or when a document has none).
  public nonisolated let placeholder: Thumbnail
  /// The most bytes of thumbnails kept in memory.
  public nonisolated let byteBudget: Int
  private let cache: ThumbnailCache
  private var entries: [String: Entry] = [:]
  private var clock: UInt64 = 0

  /// The loader over the shared thumbnail cache, keeping up to 32 MiB in memory.
  public static let shared = ThumbnailLoader()

  /// A loader keeping up to `byteBudget` bytes of thumbnails in memory.
  public init(
    byteBudget: Int = 32 << 20, cache: ThumbnailCache = .shared, placeholder: Thumbnail? = nil
  ) {
    self.byteBudget = byteBudget
    self.cache = cache
    self.placeholder =
      placeholder
      ?? .svg(
        """
        <svg xmlns="http://www.w3.org/2000/svg" width="256" height="256" viewBox="0 0 256 256">\
        <rect x="48" y="24" width="160" height="208" rx="8" fill="#f4f4f4" stroke="#bbb"/></svg>
        """)
  }

  /// The bytes of thumbnails in memory now.
  public var memoryUsage: Int { entries.values.reduce(0) { $0 + $1.thumbnail.data.count } }

  /// A stream that yields a thumbnail at once (the one in memory if it is still current, else the
  /// placeholder), then the real one when it has loaded, and ends.
  public nonisolated func thumbnails(for url: URL) -> AsyncStream<Thumbnail> {
    AsyncStream { continuation in
      let task = Task {
        if let current = await self.cachedIfCurrent(url) {
          continuation.yield(current)
        } else {
          continuation.yield(self.placeholder)
          if let loaded = await self.thumbnail(for: url) { continuation.yield(loaded) }
        }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The document's real thumbnail, read from disk if memory has no current copy; nil if it has
  /// none yet.
  public func thumbnail(for url: URL) async -> Thumbnail? {
    if let current = cachedIfCurrent(url) { return current }
    let cache = self.cache
    let loaded = await Task.detached(priority: .utility) { Self.read(url, cache: cache) }.value
    guard let (thumbnail, signature) = loaded else { return nil }
    store(thumbnail, signature: signature, for: url.standardizedFileURL.path)
    return thumbnail
  }

  /// Forgets the thumbnail of the document at `url`.
  public func invalidate(_ url: URL) {
    entries[url.standardizedFileURL.path] = nil
  }

  private func cachedIfCurrent(_ url: URL) -> Thumbnail? {
    let key = url.standardizedFileURL.path
    guard let entry = entries[key], Self.signature(of: entry.signature.path) == entry.signature
    else {
      entries[key] = nil
      return nil
    }
    clock += 1
    entries[key]?.lastUse = clock
    return entry.thumbnail
  }

  private func store(_ thumbnail: Thumbnail, signature: Signature, for key: String) {
    guard thumbnail.data.count <= byteBudget else { return }
    clock += 1
    entries[key] = Entry(thumbnail: thumbnail, signature: signature, lastUse: clock)
    var usage = memoryUsage
    while usage > byteBudget, let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })
    {
      usage -= oldest.value.thumbnail.data.count
      entries[oldest.key] = nil
    }
  }

  /// Reads the thumbnail stored with (or for) the document, and the signature of its file.
  private static func read(_ url: URL, cache: ThumbnailCache) -> (Thumbnail, Signature)? {
    for name in ["Thumbnail.png", "Thumbnail.svg"] {
      let path = url.appendingPathComponent("QuickLook").appendingPathComponent(name).path
      guard let signature = signature(of: path),
        let data = try? Data(contentsOf: URL(fileURLWithPath: path))
      else {
        continue
      }
      return (
        name.hasSuffix("png") ? .png(data) : .svg(String(decoding: data, as: UTF8.self)), signature
      )
    }
    if let path = cache.path(forDocumentAt: url), let signature = signature(of: path),
      let thumbnail = cache.thumbnail(forDocumentAt: url)
    {
      return (thumbnail, signature)
    }
    // A document in the cloud: the thumbnail its placeholder promises.
    let placeholder = CloudPlaceholder.url(for: url).path
    guard let signature = signature(of: placeholder),
      let thumbnail = CloudPlaceholder.find(for: url)?.thumbnail
    else { return nil }
    return (thumbnail, signature)
  }

  private static func signature(of path: String) -> Signature? {
    guard let info = try? Sys.status(path, followLinks: true) else { return nil }
    return Signature(path: path, size: Int64(info.st_size), modified: Date(info.st_mtim))
  }
}
