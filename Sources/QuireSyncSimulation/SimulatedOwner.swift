import QuireSyncPlanning

/// Another account, which shares folders and documents with the simulated one, read-only, and
/// keeps changing them: edits, new documents and deletions arrive in the journal like any other
/// change, and no device of the simulated account may change them.
public struct SimulatedOwner: Sendable {
  private var made = 0
  private static let names = ["Shared", "a.txt", "Plans", "b.txt"]

  /// An owner who has shared nothing yet.
  public init() {}

  /// What the owner does; `pick` chooses the item and the name.
  public enum Action: Hashable, Sendable, CaseIterable {
    /// Shares a new folder with two documents, at the top of the participant's drive.
    case shareFolder
    /// Shares one document.
    case shareDocument
    /// Saves new contents into a shared document.
    case edit
    /// Adds a document to a shared folder (or a folder in it).
    case add
    /// Deletes something inside a shared folder.
    case delete
  }

  /// Does `action` on `server`.
  public mutating func act(_ action: Action, pick: UInt64, on server: inout SimulatedServer) {
    let tree = server.tree
    let shared = tree.nodes.keys.sorted().filter { id in
      tree[id].map { tree.isReadOnly(inside: $0.placement.parent) } ?? false
    }
    let folders = tree.nodes.keys.sorted().filter {
      tree[$0]?.isFolder == true
        && (tree[$0]?.access == .readOnly || tree.isReadOnly(inside: tree[$0]?.placement.parent))
    }
    let name = Self.names[Int((pick >> 16) % UInt64(Self.names.count))]
    switch action {
    case .shareFolder, .shareDocument:
      let placement = free(name, in: nil, of: tree)
      if action == .shareDocument {
        server.put(TreeNode(id: id(), placement: placement, kind: revision(), access: .readOnly))
        return
      }
      let folder = id()
      server.put(TreeNode(id: folder, placement: placement, kind: .folder, access: .readOnly))
      for child in ["one.txt", "two.txt"] {
        server.put(
          TreeNode(id: id(), placement: Placement(parent: folder, name: child), kind: revision()))
      }
    case .edit:
      let documents = tree.nodes.values.filter {
        !$0.isFolder && ($0.access == .readOnly || tree.isReadOnly(inside: $0.placement.parent))
      }.sorted { $0.id < $1.id }
      guard !documents.isEmpty else { return }
      var node = documents[Int(pick % UInt64(documents.count))]
      node.kind = revision()
      server.put(node)
    case .add:
      guard !folders.isEmpty else { return }
      let parent = folders[Int(pick % UInt64(folders.count))]
      let kind: NodeKind = (pick >> 8) % 4 == 0 ? .folder : revision()
      server.put(TreeNode(id: id(), placement: free(name, in: parent, of: tree), kind: kind))
    case .delete:
      guard !shared.isEmpty else { return }
      server.delete(shared[Int(pick % UInt64(shared.count))])
    }
  }

  private mutating func id() -> ItemID {
    made += 1
    return ItemID("o-\(made)")
  }

  private mutating func revision() -> NodeKind {
    made += 1
    return .document(ContentRevision("o-w\(made)"))
  }

  /// `name`, or "name 2", "name 3"… , whichever is free in `parent`, as the server names a
  /// share that meets an item of the same name.
  private func free(_ name: String, in parent: ItemID?, of tree: SyncTree) -> Placement {
    var candidate = Placement(parent: parent, name: name)
    var number = 2
    while tree.item(at: candidate) != nil {
      candidate.name = "\(name) \(number)"
      number += 1
    }
    return candidate
  }
}
