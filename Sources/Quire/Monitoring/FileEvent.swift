import Foundation

/// A change to a file or folder seen by a ``FileMonitor``.
public struct FileEvent: Sendable, Hashable, CustomStringConvertible {
  /// What happened.
  public enum Kind: Sendable, Hashable {
    /// The item appeared (created, or moved in from outside the watched tree).
    case created
    /// Its contents were written.
    case modified
    /// Its permissions, owner, times or extended attributes changed.
    case attributesChanged
    /// It disappeared (deleted, or moved out of the watched tree).
    case deleted
    /// It was moved or renamed within the watched tree from the given path.
    case moved(from: String)
    /// Events were lost (the kernel's queue overflowed): whatever lists the tree must look again.
    case rescan
  }

  /// What happened.
  public var kind: Kind
  /// The item's path (for ``Kind/moved(from:)``, its new path; for ``Kind/rescan``, the root).
  public var path: String
  /// Whether the item is a folder.
  public var isDirectory: Bool

  /// Makes an event.
  public init(_ kind: Kind, path: String, isDirectory: Bool = false) {
    self.kind = kind
    self.path = path
    self.isDirectory = isDirectory
  }

  /// The item's URL.
  public var url: URL { URL(fileURLWithPath: path) }

  /// Such as `moved a.txt -> b.txt`.
  public var description: String {
    switch kind {
    case .created: "created \(path)"
    case .modified: "modified \(path)"
    case .attributesChanged: "attributes \(path)"
    case .deleted: "deleted \(path)"
    case .moved(let from): "moved \(from) -> \(path)"
    case .rescan: "rescan \(path)"
    }
  }
}
