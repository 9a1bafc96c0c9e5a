extension SyncTree {
  /// Whether `id` may be put at `placement`: its folder exists, is not `id` or inside it, and
  /// no other item has the name.
  public func canHold(_ placement: Placement, for id: ItemID) -> Bool {
    if let parent = placement.parent {
      guard self[parent]?.isFolder == true, !isWithin(parent, id) else { return false }
    }
    if let holder = item(at: placement), holder != id { return false }
    return true
  }

  /// The server's tree after a server operation, if the server would accept it: what the
  /// planner uses to chain the steps of one ``SyncOperation/commitTogether(_:)``.
  func committing(_ operation: SyncOperation) -> SyncTree? {
    var tree = self
    switch operation {
    case .upload(let node, let base):
      if var current = self[node.id] {
        guard base != nil, current.kind.revision == base else { return nil }
        current.kind = node.kind
        tree.insert(current)
      } else {
        guard base == nil, canHold(node.placement, for: node.id) else { return nil }
        tree.insert(node)
      }
    case .createFolder(let node, .remote):
      guard self[node.id] == nil, canHold(node.placement, for: node.id) else { return nil }
      tree.insert(node)
    case .move(let id, .remote, let from, let to):
      guard var current = self[id], current.placement == from, canHold(to, for: id) else {
        return nil
      }
      current.placement = to
      tree.insert(current)
    case .trash(let node, .remote):
      guard self[node.id] == node, children(of: node.id).isEmpty else { return nil }
      tree.remove(node.id)
    case .commitTogether(let operations):
      for operation in operations {
        guard let next = tree.committing(operation) else { return nil }
        tree = next
      }
    default:
      return nil
    }
    return tree
  }
}
