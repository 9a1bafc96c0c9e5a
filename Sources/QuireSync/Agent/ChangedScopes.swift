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
struct ChangedScopes: Sendable {
  /// The scopes as added, some perhaps under others: an insert looks only above the new one,
  /// so a burst of thousands of events costs each its depth, not the scopes held.
  private var held: Set<String> = []

  /// No scope: nothing changed.
  init() {}

  /// The scopes of `changed` (paths relative to the synced folder).
  init(_ changed: some Sequence<String>) {
    for path in changed { insert(path) }
  }

  /// The scopes, none under another: each place a scan looks at once.
  var paths: Set<String> {
    if held.contains("") { return [""] }
    return held.filter { !Self.hasAncestor($0, in: held) }
  }

  /// How many scopes it holds (at most; some may lie under others).
  var count: Int { held.count }

  /// Whether it holds the whole folder.
  var isEverything: Bool { held.contains("") }

  /// Adds the scope of `changed`, a path relative to the synced folder ("" for the folder).
  mutating func insert(_ changed: String) {
    guard let scope = Self.scope(of: changed), !contains(scope) else { return }
    held.insert(scope)
  }

  /// Adds every scope of `other`.
  mutating func formUnion(_ other: ChangedScopes) {
    for path in other.held { insert(path) }
  }

  /// Whether `path` is a scope or under one.
  func contains(_ path: String) -> Bool {
    if held.isEmpty { return false }
    return held.contains("") || held.contains(path) || Self.hasAncestor(path, in: held)
  }

  /// Whether a folder above `path` is in `set`.
  private static func hasAncestor(_ path: String, in set: Set<String>) -> Bool {
    var end = path.utf8.endIndex
    while let slash = path.utf8[..<end].lastIndex(of: UInt8(ascii: "/")) {
      if set.contains(String(path[..<slash])) { return true }
      end = slash
    }
    return false
  }

  /// Whether `record`'s path is a scope or under one, told without building its path (a push
  /// asks it of every synced item).
  func contains(_ record: SyncedRecord) -> Bool {
    if held.isEmpty { return false }
    if held.count > 8 { return contains(record.path) }
    return held.contains { scope in
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
