/// One of the agent's three trees (remote, local or synced): every item by identity, with an
/// index by placement so that the planner asks "who is there?" and "what is in this folder?"
/// without walking the tree.
///
/// A tree is a value. It does not check that parents exist or that names are unique: the trees
/// it is built from (a server's journal, a scan of a disk) are whole, and the planner only
/// emits operations that keep them so. A remote tree may hold two items under one name for a
/// moment, though (an answer to the device's own commit is applied before an older journal
/// entry that moved the other item away), so the index keeps every holder of a placement.
public struct SyncTree: Hashable, Sendable {
  /// Every item, by identity.
  public private(set) var nodes: [ItemID: TreeNode] = [:]
  private var byPlacement: [Placement: [ItemID]] = [:]
  private var childrenOf: [ItemID?: Set<ItemID>] = [:]

  /// An empty tree: nothing synced yet, an empty folder, an empty account.
  public init() {}

  /// A tree of these items.
  public init(_ nodes: some Sequence<TreeNode>) {
    for node in nodes { insert(node) }
  }

  /// The item `id`, if the tree has it.
  public subscript(id: ItemID) -> TreeNode? { nodes[id] }

  /// The item at `placement`, if any.
  public func item(at placement: Placement) -> ItemID? { byPlacement[placement]?.min() }

  /// The items directly in folder `parent` (`nil`: the top of the drive).
  public func children(of parent: ItemID?) -> Set<ItemID> { childrenOf[parent] ?? [] }

  /// How many items the tree holds.
  public var count: Int { nodes.count }

  /// Adds `node`, or replaces the item with its identity (moving it if its placement changed).
  public mutating func insert(_ node: TreeNode) {
    remove(node.id)
    nodes[node.id] = node
    byPlacement[node.placement, default: []].append(node.id)
    childrenOf[node.placement.parent, default: []].insert(node.id)
  }

  /// Removes the item `id` (and nothing under it).
  public mutating func remove(_ id: ItemID) {
    guard let old = nodes.removeValue(forKey: id) else { return }
    byPlacement[old.placement]?.removeAll { $0 == id }
    if byPlacement[old.placement]?.isEmpty == true { byPlacement[old.placement] = nil }
    childrenOf[old.placement.parent]?.remove(id)
    if childrenOf[old.placement.parent]?.isEmpty == true { childrenOf[old.placement.parent] = nil }
  }

  /// Whether `ancestor` is `id` or holds it, at any depth.
  public func isWithin(_ id: ItemID, _ ancestor: ItemID) -> Bool {
    var current: ItemID? = id
    var steps = 0
    while let each = current, steps <= nodes.count {
      if each == ancestor { return true }
      current = nodes[each]?.placement.parent
      steps += 1
    }
    return false
  }

  /// Whether an item placed in folder `parent` would be inside a read-only share: `parent` or
  /// a folder above it is ``Access/readOnly``.
  public func isReadOnly(inside parent: ItemID?) -> Bool {
    var current = parent
    var steps = 0
    while let each = current, let node = nodes[each], steps <= nodes.count {
      if node.access == .readOnly { return true }
      current = node.placement.parent
      steps += 1
    }
    return false
  }

  /// Two trees are equal when they hold the same items in the same places.
  public static func == (lhs: SyncTree, rhs: SyncTree) -> Bool { lhs.nodes == rhs.nodes }

  /// Hashes the items.
  public func hash(into hasher: inout Hasher) { hasher.combine(nodes) }
}
