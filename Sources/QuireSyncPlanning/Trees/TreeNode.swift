/// One item as one of the three trees sees it: its identity, where it is, and what it holds.
public struct TreeNode: Hashable, Sendable, CustomStringConvertible {
  /// The item's identity, the same in every tree.
  public var id: ItemID
  /// Where the item is in this tree.
  public var placement: Placement
  /// A folder, or a document and its revision.
  public var kind: NodeKind
  /// Whether this account may change the item's contents (the server says; see ``Access``).
  public var access: Access

  /// An item `id` at `placement`.
  public init(id: ItemID, placement: Placement, kind: NodeKind, access: Access = .writable) {
    self.id = id
    self.placement = placement
    self.kind = kind
    self.access = access
  }

  /// Whether `other` is in the same place with the same contents: what the two sides must
  /// agree on. Access is the server's to say, so it is not compared.
  public func matches(_ other: TreeNode?) -> Bool {
    guard let other else { return false }
    return placement == other.placement && kind == other.kind
  }

  /// Whether the item is a folder.
  public var isFolder: Bool { kind == .folder }

  /// `id@parent/name` and the revision, for plans and failing seeds.
  public var description: String {
    "\(id)@\(placement)" + (kind.revision.map { "=\($0)" } ?? "/")
      + (access == .readOnly ? " (read-only)" : "")
  }
}
