import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Renaming, moving and duplicating documents the way a document browser does: every change is a
/// coordinated write (open documents and running queries hear of it at once), nothing is ever
/// replaced, and a name that is taken gets the first free variant (`Report 2.mydoc`).
public enum DocumentFiles {
  /// Throws unless `name` is one plain Linux file name: not empty, not `.` or `..`, without `/`
  /// or NUL, at most 255 bytes — the rule every Quire call that names a file applies.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidName``, saying what is wrong.
  public static func validateName(_ name: String) throws(QuireError) {
    try FileName.validate(name)
  }

  /// Renames the document at `url` to `name` in its folder; returns where it is now.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidName`` for a name with `/`, NUL, `..` or
  ///   too many bytes; the file-system error otherwise.
  @discardableResult
  public static func rename(_ url: URL, to name: String) throws(QuireError) -> URL {
    try move(url, into: url.deletingLastPathComponent(), as: name)
  }

  /// Moves the document at `url` into `folder`, keeping its name (or a free variant).
  @discardableResult
  public static func move(_ url: URL, into folder: URL) throws(QuireError) -> URL {
    try move(url, into: folder, as: url.lastPathComponent)
  }

  /// Copies the document at `url` beside it as "Name copy.ext" (or a free variant); the copy is a
  /// new document with an identity of its own.
  @discardableResult
  public static func duplicate(_ url: URL) throws(QuireError) -> URL {
    try copy(
      url, into: url.deletingLastPathComponent(),
      as: FileName.fitted(url.lastPathComponent, marker: " copy"))
  }

  /// Copies the document or folder at `url` into `folder`, keeping its name (or a free
  /// variant), as a Ctrl-drag copies in a file browser. The copy, and every document in a copied
  /// folder, is a new document with an identity of its own.
  @discardableResult
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidName`` for a folder copied into itself or
  ///   into a folder inside it.
  public static func copy(_ url: URL, into folder: URL) throws(QuireError) -> URL {
    let source = url.standardizedFileURL.path
    let target = folder.standardizedFileURL.path
    guard target != source, !target.hasPrefix(source + "/") else {
      throw QuireError(
        .invalidName, "“\(source)” cannot be copied into itself: choose a folder outside it.",
        path: source)
    }
    return try copy(url, into: folder, as: url.lastPathComponent)
  }

  private static func copy(_ url: URL, into folder: URL, as name: String) throws(QuireError) -> URL
  {
    let scratch = folder.appendingPathComponent(
      TemporaryName.forNewVersion(of: url.lastPathComponent))
    do {
      try FileCoordinator().coordinate(readingItemAt: url) { source in
        try FileWrapper(url: source, options: .immediate).write(to: scratch)
      }
    } catch {
      try? FileManager.default.removeItem(at: scratch)
      throw QuireError.wrap(error, "Could not copy “\(url.path)”.", path: url.path)
    }
    // A copy is a new document: no identity of the original, on it or on anything it holds.
    _ = cquire_removexattr(scratch.path, DocumentIdentity.attribute)
    if let inside = FileManager.default.enumerator(atPath: scratch.path) {
      for case let relative as String in inside {
        _ = cquire_removexattr(
          scratch.appendingPathComponent(relative).path, DocumentIdentity.attribute)
      }
    }
    do {
      return try move(scratch, into: folder, as: name)
    } catch {
      try? FileManager.default.removeItem(at: scratch)
      throw error
    }
  }

  private static func move(_ url: URL, into folder: URL, as name: String) throws(QuireError)
    -> URL
  {
    try FileName.validate(name, in: folder.path)
    let coordinator = FileCoordinator()
    var result = url
    do {
      try coordinator.coordinate(writingItemAt: url, options: .forMoving) { source in
        let target = try Document.move(source, into: folder.standardizedFileURL, as: name)
        coordinator.item(at: source, didMoveTo: target)
        result = target
      }
    } catch {
      throw QuireError.wrap(error, "Could not move “\(url.path)”.", path: url.path)
    }
    return result
  }
}
