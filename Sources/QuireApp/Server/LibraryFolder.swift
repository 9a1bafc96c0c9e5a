import Foundation
import Quire

/// The app's library folder, and the one gate every path from the page goes through: a path is
/// relative to the library, made of plain names, and — symbolic links followed — stays inside.
struct LibraryFolder: Sendable {
  /// The library, with symbolic links resolved.
  let root: URL

  init(_ url: URL) throws(QuireError) {
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
      throw QuireError(
        .permissionDenied,
        "Could not create the library folder \(url.path). Check its permissions.",
        path: url.path, cause: error)
    }
    root = url.resolvingSymlinksInPath().standardizedFileURL
  }

  /// The URL for `relative` ("" is the library itself).
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidName`` for an absolute path, `.` or `..`,
  ///   a NUL, an empty or overlong name, or a path that leads outside through a symbolic link.
  func url(_ relative: String) throws(QuireError) -> URL {
    guard relative.utf8.count <= 4096 else { throw Self.invalid(relative, "is too long") }
    guard !relative.hasPrefix("/") else { throw Self.invalid(relative, "is absolute") }
    let names = relative.split(separator: "/", omittingEmptySubsequences: false)
    if relative.isEmpty { return root }
    var url = root
    for name in names {
      do { try DocumentFiles.validateName(String(name)) } catch {
        throw Self.invalid(relative, "has an empty, “.”, “..”, NUL or overlong part")
      }
      url.appendPathComponent(String(name))
    }
    // Symbolic links: what exists of the path must resolve to somewhere inside.
    var existing = url
    while !FileManager.default.fileExists(atPath: existing.path), existing.path != root.path {
      existing.deleteLastPathComponent()
    }
    let resolved = existing.resolvingSymlinksInPath().standardizedFileURL.path
    guard resolved == root.path || resolved.hasPrefix(root.path + "/") else {
      throw Self.invalid(relative, "leads outside the library")
    }
    return url
  }

  /// The path of `url` relative to the library.
  func relative(_ url: URL) -> String {
    let path = url.standardizedFileURL.path
    if path == root.path { return "" }
    return path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : path
  }

  /// The item at `relative`, which may not be the library itself: what is renamed, moved,
  /// duplicated, copied or trashed.
  func item(_ relative: String) throws(QuireError) -> URL {
    guard !relative.isEmpty else {
      throw QuireError(
        .invalidName,
        "The library itself cannot be renamed, moved, copied or trashed: name an item in it.")
    }
    return try url(relative)
  }

  /// A plain file name from the page (no folders).
  func name(_ name: String) throws(QuireError) -> String {
    try DocumentFiles.validateName(name)
    return name
  }

  private static func invalid(_ path: String, _ problem: String) -> QuireError {
    let shown = path.count > 80 ? String(path.prefix(80)) + "…" : path
    return QuireError(
      .invalidName,
      "The path “\(shown.replacingOccurrences(of: "\0", with: "\\0"))” \(problem); use a path inside the library.",
      path: nil)
  }
}
