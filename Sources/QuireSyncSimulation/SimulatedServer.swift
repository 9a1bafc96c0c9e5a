import QuireSyncPlanning

/// The server as the simulation models it: one tree, a change journal with sequence numbers,
/// and every revision it ever accepted (its versions).
///
/// It checks each commit as the real server does: an upload names the revision it replaces, a
/// move the placement it moves from, a trash the item it trashes; a commit whose expectation
/// fails is refused. Repeating an accepted commit (a retry whose answer was lost) succeeds and
/// changes nothing.
public struct SimulatedServer: Sendable {
  /// The server's tree now.
  public private(set) var tree = SyncTree()
  /// Every change, in order: the item and what it became (`nil`: trashed).
  public private(set) var journal: [(id: ItemID, node: TreeNode?)] = []
  /// Every revision the server accepted: in a current document or kept as a version.
  public private(set) var versions: Set<ContentRevision> = []

  /// An empty account.
  public init() {}

  /// An account that holds `tree`, each item in one journal entry and each revision a version.
  public init(tree: SyncTree) {
    self.tree = tree
    for node in tree.nodes.values.sorted(by: { $0.id < $1.id }) {
      journal.append((node.id, node))
      if let revision = node.kind.revision { versions.insert(revision) }
    }
  }

  /// What the server answers a commit.
  public enum Answer: Equatable, Sendable {
    /// The commit's expectation failed; nothing changed.
    case refused
    /// The server already held what the commit asks for (a repeated request).
    case unchanged
    /// The server changed items: the journal entries in this range say how.
    case changed(Range<Int>)
  }

  /// Applies a commit and answers it.
  public mutating func commit(_ operation: SyncOperation) -> Answer {
    let before = journal.count
    guard accept(operation) else { return .refused }
    return journal.count == before ? .unchanged : .changed(before..<journal.count)
  }

  private mutating func accept(_ operation: SyncOperation) -> Bool {
    guard allowed(operation) else { return false }
    switch operation {
    case .upload(let node, let base):
      guard let revision = node.kind.revision else { return false }
      if let current = tree[node.id] {
        if current.kind == node.kind { return true }
        guard base != nil, current.kind.revision == base else { return false }
        change(TreeNode(id: node.id, placement: current.placement, kind: node.kind))
      } else {
        guard base == nil, tree.canHold(node.placement, for: node.id) else { return false }
        change(node)
      }
      versions.insert(revision)
      return true
    case .createFolder(let node, _):
      if let current = tree[node.id] { return current.isFolder }
      guard tree.canHold(node.placement, for: node.id) else { return false }
      change(node)
      return true
    case .move(let id, _, let from, let to):
      guard var current = tree[id] else { return false }
      if current.placement == to { return true }
      guard current.placement == from, tree.canHold(to, for: id) else { return false }
      current.placement = to
      change(current)
      return true
    case .trash(let node, _):
      guard let current = tree[node.id] else { return true }
      guard current == node, tree.children(of: node.id).isEmpty else { return false }
      tree.remove(node.id)
      journal.append((node.id, nil))
      return true
    case .commitTogether(let operations):
      // One commit, one journal entry per item it changed, with the item's final state: a
      // device reading the journal never sees a step in between (an item parked on the way).
      var attempt = self
      for operation in operations where !attempt.accept(operation) { return false }
      for id in Set(operations.flatMap(\.items)).sorted() where attempt.tree[id] != tree[id] {
        journal.append((id, attempt.tree[id]))
      }
      tree = attempt.tree
      versions = attempt.versions
      return true
    case .download, .keepAside, .resolveClash, .record, .forget:
      return false
    }
  }

  /// Whether the account may make this change: nothing inside a read-only share changes, and
  /// a read-only share itself only moves.
  private func allowed(_ operation: SyncOperation) -> Bool {
    switch operation {
    case .upload(let node, _):
      if let current = tree[node.id] {
        return current.access == .writable && !tree.isReadOnly(inside: current.placement.parent)
      }
      return !tree.isReadOnly(inside: node.placement.parent)
    case .createFolder(let node, _):
      return tree[node.id] != nil || !tree.isReadOnly(inside: node.placement.parent)
    case .move(let id, _, _, let to):
      guard let current = tree[id] else { return true }
      return current.placement == to
        || (!tree.isReadOnly(inside: current.placement.parent)
          && !tree.isReadOnly(inside: to.parent))
    case .trash(let node, _):
      guard let current = tree[node.id] else { return true }
      return current.access == .writable && !tree.isReadOnly(inside: current.placement.parent)
    default:
      return true
    }
  }

  /// Another account, which owns a share, puts `node` there (or changes it).
  mutating func put(_ node: TreeNode) {
    change(node)
    if let revision = node.kind.revision { versions.insert(revision) }
  }

  /// Another account, which owns a share, deletes `id` and everything in it.
  mutating func delete(_ id: ItemID) {
    for each in tree.nodes.keys.sorted() where each != id && tree.isWithin(each, id) {
      tree.remove(each)
      journal.append((each, nil))
    }
    tree.remove(id)
    journal.append((id, nil))
  }

  private mutating func change(_ node: TreeNode) {
    tree.insert(node)
    journal.append((node.id, node))
  }
}
