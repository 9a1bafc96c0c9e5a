import Foundation

/// The file-system attributes a ``FileWrapper`` carries: the `fileAttributes` of Foundation's
/// FileWrapper, as a typed value instead of a dictionary.
///
/// When a wrapper is written, non-nil attributes are applied to the file; nil ones take the
/// system's defaults (the umask for permissions, the time of the write for dates).
public struct FileAttributes: Hashable, Sendable {
  // Declared largest first, so the three pack into 29 bytes rather than 33.
  /// The modification date.
  public var modificationDate: Date?
  /// The size in bytes as last read from disk (read-only in effect: writing ignores it).
  public var size: Int64?
  /// The POSIX permission bits, such as `0o644`.
  public var posixPermissions: UInt16?

  /// Makes a set of attributes; all default to nil.
  public init(posixPermissions: UInt16? = nil, modificationDate: Date? = nil, size: Int64? = nil) {
    self.posixPermissions = posixPermissions
    self.modificationDate = modificationDate
    self.size = size
  }
}
