/// One step the executor takes to bring the two sides of a sync together.
///
/// Every operation names what it expects to find (a revision it replaces, a placement it moves
/// from, the item it trashes). The executor checks that under coordination, or the server checks
/// it in its commit, and refuses the step when it no longer holds. The planner is then asked
/// again with the trees as they now are: it never assumes that a step succeeded.
public enum SyncOperation: Hashable, Sendable, CustomStringConvertible {
  /// Sends the local document's contents (`node`'s revision) to the server. `base` is the
  /// server's revision it replaces; `nil` creates the item at `node`'s placement.
  case upload(TreeNode, base: ContentRevision?)
  /// Writes the server's document (`node`) to disk over the local revision `replacing`; `nil`
  /// creates it at `node`'s placement.
  case download(TreeNode, replacing: ContentRevision?)
  /// Makes the folder `node` on `side`.
  case createFolder(TreeNode, on: SyncSide)
  /// Moves or renames an item on `side`, from the placement it was planned at.
  case move(ItemID, on: SyncSide, from: Placement, to: Placement)
  /// Moves `node` (as planned, and empty if a folder) to the trash on `side`. On the server its
  /// revisions stay as versions.
  case trash(TreeNode, on: SyncSide)
  /// Renames the local document `node`, which conflicts with the server's, to `placement` as a
  /// new item ("Name (my changes)"), so that both sides are kept and the server's is downloaded.
  case keepAside(TreeNode, as: Placement)
  /// Renames a local item out of the way of another that the server holds under its name.
  case resolveClash(ItemID, from: Placement, to: Placement)
  /// Both sides hold `node`: it becomes the synced state, the base of the next merge.
  case record(TreeNode)
  /// The item is gone from both sides: the synced tree forgets it.
  case forget(ItemID)
  /// Commits these server operations in order as one request, all or none. An item that must
  /// step aside under a moving name on the way (two names swapped, a folder made under a file's
  /// old name) is parked and placed in the same commit, so no other device ever sees it parked.
  indirect case commitTogether([SyncOperation])

  /// The items the operation is about.
  public var items: [ItemID] {
    if case .commitTogether(let operations) = self { return operations.flatMap(\.items) }
    return [item]
  }

  /// The item the operation is about (for a commit of several, the first one's).
  public var item: ItemID {
    switch self {
    case .commitTogether(let operations): operations.first?.item ?? ItemID("")
    case .upload(let node, _), .download(let node, _), .createFolder(let node, _),
      .trash(let node, _), .keepAside(let node, _), .record(let node):
      node.id
    case .move(let id, _, _, _), .resolveClash(let id, _, _), .forget(let id): id
    }
  }

  /// The operation, as a plan prints it.
  public var description: String {
    switch self {
    case .upload(let node, let base): "upload \(node) base \(base?.rawValue ?? "-")"
    case .download(let node, let old): "download \(node) over \(old?.rawValue ?? "-")"
    case .createFolder(let node, let side): "create folder \(node) on \(side)"
    case .move(let id, let side, let from, let to): "move \(id) on \(side) \(from) -> \(to)"
    case .trash(let node, let side): "trash \(node) on \(side)"
    case .keepAside(let node, let placement): "keep aside \(node) as \(placement)"
    case .resolveClash(let id, let from, let to): "resolve clash \(id) \(from) -> \(to)"
    case .record(let node): "record \(node)"
    case .forget(let id): "forget \(id)"
    case .commitTogether(let operations):
      "commit together [" + operations.map(\.description).joined(separator: "; ") + "]"
    }
  }
}
