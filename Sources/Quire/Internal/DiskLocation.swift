import Synchronization

/// Where a directory lives on disk, as a chain of names up to an absolute root.
///
/// Wrappers read from disk point at the location of their folder plus their own name, so a
/// package of 100 000 members stores one location per folder, not one path per member, and a
/// moved package is re-rooted by changing one node.
final class DiskLocation: Sendable {
  private struct Link {
    var parent: DiskLocation?
    var name: String
  }
  private let link: Mutex<Link>

  /// A root location: `absolutePath` is a whole path such as `/home/ada/Documents`.
  init(absolutePath: String) {
    link = Mutex(Link(parent: nil, name: absolutePath))
  }

  /// The location of the folder `name` inside `parent`.
  init(parent: DiskLocation, name: String) {
    link = Mutex(Link(parent: parent, name: name))
  }

  /// The absolute path of this folder.
  var path: String {
    let (parent, name) = link.withLock { ($0.parent, $0.name) }
    guard let parent else { return name }
    return parent.path.appendingPathComponent(name)
  }

  /// The absolute path of `name` inside this folder.
  func path(of name: String) -> String { path.appendingPathComponent(name) }

  /// Points this location at a new absolute path (the folder was moved as a whole).
  func relocate(toAbsolutePath path: String) {
    link.withLock { $0 = Link(parent: nil, name: path) }
  }
}

extension String {
  /// `self + "/" + component`, without doubling a trailing slash of the root.
  func appendingPathComponent(_ component: String) -> String {
    hasSuffix("/") ? self + component : self + "/" + component
  }

  /// The path without its last component (`/` for a top-level item).
  var deletingLastPathComponent: String {
    guard let slash = lastIndex(of: "/") else { return "." }
    return slash == startIndex ? "/" : String(self[..<slash])
  }

  /// The last component of a path.
  var lastPathComponent: String {
    guard let slash = lastIndex(of: "/") else { return self }
    return String(self[index(after: slash)...])
  }
}
