import Foundation

/// Thumbnails of single-file documents (which cannot hold their own), kept in the user's cache
/// folder under the document's identity, so they survive renames and safe-saves.
public final class ThumbnailCache: Sendable {
  /// The cache in `$XDG_CACHE_HOME/quire/thumbnails` (or `~/.cache/quire/thumbnails`).
  public static let shared = ThumbnailCache(folder: ThumbnailCache.defaultFolder)

  /// The folder holding the cached thumbnails.
  public let folder: URL

  /// A cache in `folder`.
  public init(folder: URL) {
    self.folder = folder
  }

  static var defaultFolder: URL { XDGDirectory.cache.appendingPathComponent("thumbnails") }

  /// Stores `thumbnail` for the document at `url`, replacing an older one.
  public func store(_ thumbnail: Thumbnail, forDocumentAt url: URL) throws(QuireError) {
    let identity = try DocumentIdentity.identity(of: url, creating: true)
    do {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .ioError, "Could not create the thumbnail cache “\(folder.path)”.", path: folder.path,
        cause: error)
    }
    for old in ["png", "svg"] {
      try? FileManager.default.removeItem(at: folder.appendingPathComponent("\(identity).\(old)"))
    }
    try FileWrapper(regularFileWithContents: thumbnail.data)
      .write(to: folder.appendingPathComponent("\(identity).\(thumbnail.fileExtension)"))
  }

  /// The path of the cached thumbnail file of the document at `url`, if there is one.
  func path(forDocumentAt url: URL) -> String? {
    guard let identity = try? DocumentIdentity.identity(of: url, creating: false) else {
      return nil
    }
    for fileExtension in ["png", "svg"] {
      let path = folder.appendingPathComponent("\(identity).\(fileExtension)").path
      if FileManager.default.fileExists(atPath: path) { return path }
    }
    return nil
  }

  /// The cached thumbnail of the document at `url`, if any.
  public func thumbnail(forDocumentAt url: URL) -> Thumbnail? {
    guard let identity = try? DocumentIdentity.identity(of: url, creating: false) else {
      return nil
    }
    if let png = try? Data(contentsOf: folder.appendingPathComponent("\(identity).png")) {
      return .png(png)
    }
    if let svg = try? String(
      contentsOf: folder.appendingPathComponent("\(identity).svg"), encoding: .utf8)
    {
      return .svg(svg)
    }
    return nil
  }
}
