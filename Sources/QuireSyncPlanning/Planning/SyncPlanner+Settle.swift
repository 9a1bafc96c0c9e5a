extension SyncPlanner {
  /// The synced state of `id` once `operation` has succeeded: the base of the next merge.
  ///
  /// The executor stores it in the same transaction as the operation's own tree update, so that
  /// a download is never mistaken later for a local creation (and uploaded back after the
  /// server trashed it), nor an upload for a remote edit. Two things become synced:
  /// - what the operation carried: the revision it uploaded or downloaded, the placement it
  ///   created the item at or moved it to (not a moving name), once the side it changed shows
  ///   it. Both sides held exactly that when it succeeded, even if a plan made before the last
  ///   journal read was late, so a side that has moved on since is seen as changed, and wins;
  /// - whatever the two sides agree on now.
  ///
  /// An item both sides lack is forgotten (`nil`); one with no synced state and nothing carried
  /// or agreed stays unsynced (`nil`).
  public static func settled(
    _ id: ItemID, after operation: SyncOperation, remote: SyncTree, local: SyncTree,
    synced: SyncTree
  ) -> TreeNode? {
    let l = local[id]
    let r = remote[id]
    if l == nil && r == nil { return nil }
    var node = synced[id]
    for step in steps(of: operation) {
      // Carried only where the side it changed shows it: a server change whose answer was not
      // read (a repeated request the server had already taken) is known once the journal says.
      switch step {
      case .upload(let carried, let base) where carried.id == id && r?.kind == carried.kind:
        let created = base == nil && r?.placement == carried.placement
        node = carry(carried, into: node, placement: created, fallback: r)
      case .download(let carried, let replacing) where carried.id == id && l?.kind == carried.kind:
        let created = replacing == nil && l?.placement == carried.placement
        node = carry(carried, into: node, placement: created, fallback: l)
      case .createFolder(let carried, let side) where carried.id == id:
        if (side == .local ? l : r)?.placement == carried.placement {
          node = carry(carried, into: node, placement: true, fallback: nil)
        }
      case .move(let moved, let side, _, let to) where moved == id && !to.isMoving:
        if (side == .local ? l : r)?.placement == to { node?.placement = to }
      default:
        break
      }
    }
    guard var result = node ?? (l != nil && l?.matches(r) == true ? r : nil) else { return nil }
    if let l, let r {
      result.access = r.access
      if l.kind == r.kind { result.kind = l.kind }
      if l.placement == r.placement { result.placement = l.placement }
    }
    return result
  }

  private static func steps(of operation: SyncOperation) -> [SyncOperation] {
    if case .commitTogether(let operations) = operation { return operations }
    return [operation]
  }

  /// `node` with the contents `carried` holds, and its placement too if the operation created
  /// the item; an item with no synced state takes its placement from `fallback`.
  private static func carry(
    _ carried: TreeNode, into node: TreeNode?, placement: Bool, fallback: TreeNode?
  ) -> TreeNode {
    var result =
      node
      ?? TreeNode(
        id: carried.id, placement: (fallback ?? carried).placement, kind: carried.kind,
        access: carried.access)
    result.kind = carried.kind
    if placement { result.placement = carried.placement }
    return result
  }
}
