extension SyncPlanner {
  /// The synced state of `id` once an operation on it has succeeded: whatever the two sides now
  /// agree on becomes the base of the next merge.
  ///
  /// The executor stores it in the same transaction as the operation's own tree update, so that
  /// a download is never mistaken later for a local creation (and uploaded back after the
  /// server trashed it), nor an upload for a remote edit. Where the sides agree only on the
  /// contents, or only on the placement, only that part changes; an item both sides lack is
  /// forgotten (`nil`). An item with no synced state yet takes the server's: the operation
  /// just sent it there or brought it here, so where the disk differs, the disk changed since.
  public static func settled(_ id: ItemID, remote: SyncTree, local: SyncTree, synced: SyncTree)
    -> TreeNode?
  {
    let base = synced[id]
    guard let l = local[id], let r = remote[id] else {
      return local[id] == nil && remote[id] == nil ? nil : base
    }
    guard var node = base else { return r }
    node.access = r.access
    if l.kind == r.kind { node.kind = l.kind }
    if l.placement == r.placement { node.placement = l.placement }
    return node
  }
}
