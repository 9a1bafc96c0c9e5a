import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A document of a synced folder that is in the cloud but not on this device: a small hidden
/// file beside where the document would be (`.Trip.mydoc.icloud`, as iCloud Drive's were)
/// holding what is known of it without its bytes.
///
/// Other programs see only a hidden file. ``DocumentQuery`` reports the document under its
/// real name, with ``DocumentQuery/DownloadingStatus/notDownloaded``; a coordinated read of
/// the real URL asks the folder's ``FileProvider`` (the sync agent) to download it first.
public struct CloudPlaceholder: Codable, Sendable, Hashable {
  /// The document's name (the last component of its real URL).
  public var name: String
  /// Whether it is a package (a folder) rather than a flat file.
  public var isPackage: Bool
  /// Its size in bytes, every member counted.
  public var size: Int64
  /// Its identity (``DocumentIdentity``), which it keeps once downloaded.
  public var identity: String
  /// The server's revision the placeholder describes.
  public var revision: Int64
  /// When its contents were last modified.
  public var modified: Date
  /// Its Finder tags.
  public var tags: [String]
  /// Its thumbnail, promised before its bytes (a package's `QuickLook/Thumbnail.png` or
  /// `.svg`), if it has a small one: ``ThumbnailLoader`` serves it for the document.
  public var thumbnail: Thumbnail?
  /// The permissions of a package member's file, for a member's placeholder.
  public var mode: Int?
  /// For a file shared by many members' placeholders (``writeMembers(_:in:)``): each member's
  /// placeholder, by the placeholder's file name.
  public var members: [String: CloudPlaceholder]?

  /// A placeholder describing a document.
  public init(
    name: String, isPackage: Bool, size: Int64, identity: String, revision: Int64,
    modified: Date, tags: [String] = [], thumbnail: Thumbnail? = nil, mode: Int? = nil
  ) {
    self.thumbnail = thumbnail
    self.mode = mode
    self.name = name
    self.isPackage = isPackage
    self.size = size
    self.identity = identity
    self.revision = revision
    self.modified = modified
    self.tags = tags
  }

  /// The suffix of a placeholder's name.
  public static let suffix = ".icloud"

  /// The placeholder's URL for the document at `url`: `.NAME.icloud` in the same folder. A name
  /// too long for that to fit `NAME_MAX` is shortened and made unique with a hash of it (the
  /// real name is inside the placeholder).
  public static func url(for url: URL) -> URL {
    url.deletingLastPathComponent().appendingPathComponent(fileName(for: url.lastPathComponent))
  }

  /// The placeholder's file name for a document named `name` (``url(for:)`` without building
  /// URLs, for a batch of thousands).
  public static func fileName(for name: String) -> String {
    let plain = "." + name + suffix
    if plain.utf8.count <= 255 { return plain }
    var value: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a: a short, stable tag of the name
    for byte in name.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01b3 }
    let hash = String(value, radix: 16)
    var stem = Substring(name)
    while ("." + stem + "~" + hash + suffix).utf8.count > 255 { stem = stem.dropLast() }
    return "." + stem + "~" + hash + suffix
  }

  /// Whether `name` is a placeholder's name.
  public static func isPlaceholderName(_ name: String) -> Bool {
    name.hasPrefix(".") && name.hasSuffix(suffix) && name.count > suffix.count + 1
  }

  /// The document's URL for the placeholder at `url`: from its name alone when that holds the
  /// whole name, else from its contents; nil if it is not a placeholder (or a shortened one
  /// that cannot be read).
  public static func documentURL(forPlaceholder url: URL) -> URL? {
    let name = url.lastPathComponent
    guard isPlaceholderName(name) else { return nil }
    let folder = url.deletingLastPathComponent()
    let inner = String(name.dropFirst().dropLast(suffix.count))
    if Self.url(for: folder.appendingPathComponent(inner)).lastPathComponent == name {
      return folder.appendingPathComponent(inner)
    }
    return (try? read(at: url)).map { folder.appendingPathComponent($0.name) }
  }

  /// The placeholder at `url`.
  ///
  /// - Throws: ``QuireError`` `notFound` if there is none, `corruptDocument` if it is not one.
  public static func read(at url: URL) throws(QuireError) -> CloudPlaceholder {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw QuireError(
        .notFound, "There is no placeholder at “\(url.path)”.", path: url.path, cause: error)
    }
    let placeholder: CloudPlaceholder
    do { placeholder = try JSONDecoder().decode(CloudPlaceholder.self, from: data) } catch {
      throw QuireError(
        .corruptDocument,
        "“\(url.path)” is not a readable placeholder; the sync agent rewrites it on its next pull.",
        path: url.path, cause: error)
    }
    guard let members = placeholder.members else { return placeholder }
    guard let own = members[url.lastPathComponent] else {
      throw QuireError(
        .corruptDocument,
        "“\(url.path)” is not among the members its placeholder file describes; the sync agent rewrites it on its next pull.",
        path: url.path)
    }
    return own
  }

  /// The placeholder of the document at `url`, if there is one and the document itself is not
  /// there.
  public static func find(for url: URL) -> CloudPlaceholder? {
    guard access(url.path, F_OK) != 0 else { return nil }
    return try? read(at: Self.url(for: url))
  }

  /// Writes the placeholder for the document at `documentURL` (atomically: a new file renamed
  /// over the old).
  public func write(for documentURL: URL) throws(QuireError) {
    let target = Self.url(for: documentURL)
    let temporary = target.deletingLastPathComponent()
      .appendingPathComponent(".quire-placeholder-\(UUID().uuidString)")
    do {
      try JSONEncoder().encode(self).write(to: temporary)
      try Sys.rename(temporary.path, target.path)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw QuireError(
        .ioError, "Could not write the placeholder “\(target.path)”: \(error).",
        path: target.path, cause: error)
    }
  }
}
