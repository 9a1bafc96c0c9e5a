import Foundation
import Quire

/// Where the synced folder changed since the last push, as the folder's monitor said: the parts
/// of the folder a push scans, instead of all of it. Each changed path becomes its scope:
/// - a package's member, the package (a document is read whole);
/// - a placeholder (`.NAME.icloud`), the document it stands for (or its folder, when its name
///   is shortened and the document's cannot be told from it);
/// - anything else, itself: a file, a plain folder and everything under it, or what is gone.
///
/// Only the monitor's paths make a scope; everything else that asks for a push (the start, an
/// overflow, a re-armed watch, a failed step, the agent's own checks) asks for a whole scan,
/// which the agent says by holding no ``ChangedScopes`` at all. A hidden path outside a package
/// is no scope: the scan lists no hidden names.
///
/// A pure value: the mapping is tested alone (`ChangedScopesTests`).
struct ChangedScopes: Sendable, Equatable {
  /// The scopes, none under another (a scope under one already held adds nothing).
  private(set) var paths: Set<String> = []

  /// No scope: nothing changed.
  init() {}

  /// The scopes of `changed` (paths relative to the synced folder).
  init(_ changed: some Sequence<String>) {
    for path in changed { insert(path) }
  }

  /// How many scopes it holds.
  var count: Int { paths.count }

  /// Whether it holds the whole folder.
  var isEverything: Bool { paths.contains("") }

  /// Adds the scope of `changed`, a path relative to the synced folder ("" for the folder).
  mutating func insert(_ changed: String) {
    guard let scope = Self.scope(of: changed), !contains(scope) else { return }
    // What it covers goes: the scopes stay disjoint, and a scan looks at each place once.
    paths = paths.filter { !Self.isWithin($0, scope) }
    paths.insert(scope)
  }

  /// Adds every scope of `other`.
  mutating func formUnion(_ other: ChangedScopes) {
    for path in other.paths { insert(path) }
  }

  /// Whether `path` is a scope or under one.
  func contains(_ path: String) -> Bool {
    if paths.isEmpty { return false }
    if paths.contains("") || paths.contains(path) { return true }
    // Each folder above it, from the nearest.
    var end = path.utf8.endIndex
    while let slash = path.utf8[..<end].lastIndex(of: UInt8(ascii: "/")) {
      if paths.contains(String(path[..<slash])) { return true }
      end = slash
    }
    return false
  }

  /// Whether `record`'s path is a scope or under one, told without building its path (a push
  /// asks it of every synced item).
  func contains(_ record: SyncedRecord) -> Bool {
    if paths.isEmpty { return false }
    if paths.count > 8 { return contains(record.path) }
    return paths.contains { scope in
      scope.isEmpty || record.hasPath(scope) || Self.isWithin(record.folder, scope)
        || record.folder.utf8.elementsEqual(scope.utf8)
    }
  }

  /// The scope a change at `path` asks to scan, or nil for none.
  static func scope(of path: String) -> String? {
    let parts = path.split(separator: "/", omittingEmptySubsequences: true)
    var scope: [Substring] = []
    for (index, part) in parts.enumerated() {
      let isLast = index == parts.count - 1
      if part.hasPrefix(".") {
        guard isLast, CloudPlaceholder.isPlaceholderName(String(part)) else { return nil }
        let folder = scope.joined(separator: "/")
        // The document's name, when the placeholder's holds it whole (a long one is shortened,
        // and only its contents, perhaps gone, name the document).
        // A name of the longest length may be one shortened: its folder, to be sure.
        let name = String(part.dropFirst().dropLast(CloudPlaceholder.suffix.count))
        guard part.utf8.count < 255, CloudPlaceholder.fileName(for: name) == part else {
          return folder
        }
        return folder.isEmpty ? name : folder + "/" + name
      }
      scope.append(part)
      // A package holds its members: the document is the package.
      if !isLast, LocalScanner.isPackageName(String(part)) { break }
    }
    return scope.joined(separator: "/")
  }

  /// Whether `path` is strictly under `folder`.
  static func isWithin(_ path: String, _ folder: String) -> Bool {
    if folder.isEmpty { return !path.isEmpty }
    let bytes = path.utf8
    return bytes.count > folder.utf8.count && bytes.starts(with: folder.utf8)
      && bytes[bytes.index(bytes.startIndex, offsetBy: folder.utf8.count)] == UInt8(ascii: "/")
  }
}
