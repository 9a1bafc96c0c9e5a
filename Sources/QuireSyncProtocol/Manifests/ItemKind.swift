/// Whether an item is one file or a package (a folder the user sees as one document).
public enum ItemKind: String, Codable, Sendable {
  /// A flat document: its manifest has exactly one member, with an empty path.
  case file
  /// A package: its manifest lists its members by relative path.
  case package
}
