/// Whether an item is a folder or a document, and a document's contents.
///
/// A package is a document: its members travel in its revision, not as items of the tree.
public enum NodeKind: Hashable, Sendable {
  /// A folder, which holds other items.
  case folder
  /// A document with this revision of its contents.
  case document(ContentRevision)

  /// The document's revision, or `nil` for a folder.
  public var revision: ContentRevision? {
    if case .document(let revision) = self { return revision }
    return nil
  }
}
