import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The presenters of every process, as seen in the runtime folder, indexed so that a coordinated
/// access looks only at entries that can concern it:
///
/// - `presenters/at/HASH/OWNER-N` — a symbolic link to the presented path, in the folder named
///   by the hash of that path (found by accesses to the path itself and to items inside it);
/// - `presenters/below/HASH/OWNER-N` — the same link in the folder of each of the path's
///   ancestors (found by an access to a folder or package containing the presented item).
///
/// An access to a path of depth d lists at most d + 2 small folders, whatever the number of
/// presenters elsewhere. Hash collisions only add candidates: each link's target is checked.
enum PresenterDirectory {
  private static var at: String { CoordinationRuntime.presenters + "/at" }
  private static var below: String { CoordinationRuntime.presenters + "/below" }

  /// Publishes the entry `name` for `path`.
  static func publish(_ name: String, path: String) {
    for folder in folders(of: path) {
      mkdir(folder, 0o700)
      let link = folder + "/" + name
      unlink(link)
      symlink(path, link)
    }
  }

  /// Removes the entry `name` for `path`.
  static func unpublish(_ name: String, path: String) {
    for folder in folders(of: path) {
      unlink(folder + "/" + name)
      rmdir(folder)  // only succeeds once empty
    }
  }

  /// The entries (name and presented path) that may concern an access to `path`. `entries`
  /// lists one folder of the index: ``entries(in:)``, or a copy of its answers kept for one
  /// access, whose items often share their ancestors.
  static func candidates(
    for path: String, entries: (String) -> [(name: String, target: String)] = entries(in:)
  ) -> [(name: String, target: String)] {
    var folders = [at + "/" + hash(path), below + "/" + hash(path)]
    for ancestor in ancestors(of: path) { folders.append(at + "/" + hash(ancestor)) }
    return folders.flatMap(entries)
  }

  /// The entries (name and presented path) of one folder of the index.
  static func entries(in folder: String) -> [(name: String, target: String)] {
    CoordinationRuntime.names(in: folder).compactMap { name in
      CoordinationRuntime.linkTarget(folder + "/" + name).map { (name, $0) }
    }
  }

  /// Removes every entry whose name starts with `prefix` (a process that is gone).
  static func forget(prefix: String) {
    for base in [at, below] {
      for bucket in CoordinationRuntime.names(in: base) {
        let folder = base + "/" + bucket
        for name in CoordinationRuntime.names(in: folder) where name.hasPrefix(prefix) {
          unlink(folder + "/" + name)
        }
        rmdir(folder)
      }
    }
  }

  private static func folders(of path: String) -> [String] {
    [at + "/" + hash(path)] + ancestors(of: path).map { below + "/" + hash($0) }
  }

  private static func ancestors(of path: String) -> [String] {
    var result: [String] = []
    var current = path
    while let (parent, _) = CoordinationRuntime.split(current) {
      result.append(parent)
      current = parent
    }
    return result
  }

  private static func hash(_ path: String) -> String {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in path.utf8 {
      value ^= UInt64(byte)
      value = value &* 0x100_0000_01b3
    }
    return String(value, radix: 16)
  }
}
