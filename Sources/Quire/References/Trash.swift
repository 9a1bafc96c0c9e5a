import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The freedesktop.org Trash (`$XDG_DATA_HOME/Trash`): a trashed document goes to `files/`
/// beside a `info/NAME.trashinfo` that records where it was and when, so file managers list it
/// and can put it back — and so can ``restore(_:)``.
///
/// ```swift
/// let trashed = try Trash.home.trash(document)
/// try Trash.home.restore(trashed)
/// ```
public struct Trash: Sendable {
  /// The Trash folder (holding `files/` and `info/`).
  public let folder: URL

  /// The user's Trash: `$XDG_DATA_HOME/Trash` (or `~/.local/share/Trash`).
  public static var home: Trash {
    Trash(folder: XDGDirectory.data.deletingLastPathComponent().appendingPathComponent("Trash"))
  }

  /// A Trash at `folder`.
  public init(folder: URL) { self.folder = folder.standardizedFileURL }

  /// Moves the item at `url` into the Trash as a coordinated delete (open documents keep their
  /// unsaved edits recoverable, queries drop it); returns where it is in the Trash.
  @discardableResult
  public func trash(_ url: URL) throws(QuireError) -> URL {
    let source = url.standardizedFileURL
    let files = folder.appendingPathComponent("files")
    let info = folder.appendingPathComponent("info")
    do {
      try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
      try FileManager.default.createDirectory(at: info, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .ioError, "Could not make the Trash folder at \(folder.path). Check its permissions.",
        path: folder.path, cause: error)
    }
    // Claim a free name: the .trashinfo is made exclusively first, as the specification asks.
    var name = source.lastPathComponent
    var number = 1
    while true {
      let infoPath = info.appendingPathComponent(name + ".trashinfo").path
      let fd = open(infoPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
      if fd >= 0 {
        let record =
          "[Trash Info]\nPath=\(Self.escape(source.path))\nDeletionDate=\(Self.deletionDate())\n"
        _ = record.withCString { write(fd, $0, strlen($0)) }
        close(fd)
        break
      }
      number += 1
      let (stem, suffix) = FileName.split(source.lastPathComponent)
      name = "\(stem).\(number)\(suffix)"
    }
    let target = files.appendingPathComponent(name)
    do {
      try FileCoordinator().coordinate(writingItemAt: source, options: .forDeleting) { item in
        try FileManager.default.moveItem(at: item, to: target)
      }
    } catch {
      unlink(info.appendingPathComponent(name + ".trashinfo").path)
      throw QuireError.wrap(
        error, "Could not move “\(source.path)” to the Trash.", path: source.path)
    }
    return target
  }

  /// Puts a trashed item back where it was (or a free variant of its name there); returns
  /// where it is now.
  @discardableResult
  public func restore(_ trashed: URL) throws(QuireError) -> URL {
    let name = trashed.lastPathComponent
    let infoURL = folder.appendingPathComponent("info/\(name).trashinfo")
    guard let record = try? String(contentsOf: infoURL, encoding: .utf8),
      let line = record.split(separator: "\n").first(where: { $0.hasPrefix("Path=") })
    else {
      throw QuireError(
        .notFound, "“\(name)” is not in the Trash, or its record is missing.", path: trashed.path)
    }
    let original = URL(
      fileURLWithPath: String(line.dropFirst(5)).removingPercentEncoding
        ?? String(line.dropFirst(5)))
    let restored = try Document.move(
      trashed, into: original.deletingLastPathComponent(), as: original.lastPathComponent)
    FileCoordinator().item(at: trashed, didMoveTo: restored)
    unlink(infoURL.path)
    return restored
  }

  /// What is in the Trash that was trashed from inside `folder`: each item's place in the Trash
  /// and where it was.
  public func items(from folder: URL) -> [(trashed: URL, original: URL)] {
    let info = self.folder.appendingPathComponent("info")
    let prefix = folder.standardizedFileURL.path + "/"
    var found: [(URL, URL)] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: info.path)) ?? []
    where entry.hasSuffix(".trashinfo") {
      guard
        let record = try? String(
          contentsOf: info.appendingPathComponent(entry), encoding: .utf8),
        let line = record.split(separator: "\n").first(where: { $0.hasPrefix("Path=") }),
        let path = String(line.dropFirst(5)).removingPercentEncoding, path.hasPrefix(prefix)
      else { continue }
      let trashed = self.folder.appendingPathComponent(
        "files/" + String(entry.dropLast(".trashinfo".count)))
      found.append((trashed, URL(fileURLWithPath: path)))
    }
    return found
  }

  private static func escape(_ path: String) -> String {
    var allowed = CharacterSet.urlPathAllowed
    allowed.remove(charactersIn: "%")
    return path.addingPercentEncoding(withAllowedCharacters: allowed) ?? path
  }

  private static func deletionDate() -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
    return formatter.string(from: Date())
  }
}
