import Foundation
import Quire

/// Which events of the synced folder ask for a push: those that can change what a push's scan
/// finds. The agent's own work does not: a first sync of a hundred thousand files writes as
/// many files and placeholders, and a full scan for each page of them made the receiver's cost
/// grow with the square of the folder's size.
///
/// What is left out is known from the names alone, never from timing:
/// - anything under the agent's own temporaries (`.quire-sync-…`), which no one else writes;
/// - a move *from* such a temporary: the agent publishing a download, a placeholder or a folder
///   it made. What the agent publishes it records at once; if recording fails, the step fails
///   and the next round pushes anyway;
/// - a placeholder (`.NAME.icloud`) appearing or being written: the scan does not list hidden
///   names, and a synced placeholder that moves or goes away has its own event where it was;
/// - a plain folder appearing: it is no document, and what it holds has events of its own.
enum FolderEventFilter {
  /// Whether `event`, at `parts` (its path's components under the synced folder), asks for a
  /// push.
  static func asksForPush(_ event: FileEvent, parts: [Substring]) -> Bool {
    if parts.contains(where: { $0.hasPrefix(temporaryPrefix) }) { return false }
    switch event.kind {
    case .moved(let from):
      return !isTemporaryName(from.split(separator: "/").last ?? "")
    case .created where event.isDirectory:
      // A plain folder is no document; what it holds is reported as created, each its own
      // event (``FileMonitor`` lists every folder it starts watching). A package is one.
      return LocalScanner.isPackageName(parts.last.map(String.init) ?? "")
    case .created, .modified, .attributesChanged:
      return !(parts.last.map { CloudPlaceholder.isPlaceholderName(String($0)) } ?? false)
    case .deleted, .rescan:
      return true
    }
  }

  /// The start of every temporary name the agent writes in the synced folder.
  static let temporaryPrefix = ".quire-sync"

  /// A new temporary name for something the agent publishes in the synced folder.
  static func temporaryName() -> String { temporaryPrefix + "-" + UUID().uuidString }

  /// Whether `name` is one ``temporaryName()`` makes (a person's `.quire-syncing` is not).
  static func isTemporaryName(_ name: Substring) -> Bool {
    name.hasPrefix(temporaryPrefix + "-")
      && UUID(uuidString: String(name.dropFirst(temporaryPrefix.count + 1))) != nil
  }
}
