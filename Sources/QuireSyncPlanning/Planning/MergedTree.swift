/// The tree both sides should end up holding, worked out from the three trees. The planner then
/// only has to compare each side with it.
///
/// The rules, per item, against the synced tree as the base:
/// - what only one side changed, that side's version; what both changed alike, either;
/// - a document both changed differently: the server's revision, with the local one kept aside;
/// - a placement both changed differently: the server's, the first to be committed;
/// - an item deleted on one side and changed on the other is kept (modification beats deletion),
///   and so is every folder that holds something kept;
/// - an item parked under a moving name (``Placement/movingPrefix``) counts as still where it
///   was;
/// - a move that would make a folder its own ancestor loses to the server's placement;
/// - two items under one name: the one the server has there keeps it, the other is renamed;
/// - in a read-only share the server's state holds: a local edit is kept aside as the
///   participant's own document, a deletion is undone, and what they added moves out.
struct MergedTree {
  /// The tree both sides should hold.
  private(set) var target = SyncTree()
  /// Documents whose local revision must be kept aside before the server's is downloaded.
  private(set) var conflicts: Set<ItemID> = []
  /// Items renamed because another item holds their name on the server.
  private(set) var renamed: Set<ItemID> = []
  private var placedFromLocal: Set<ItemID> = []

  init(remote: SyncTree, local: SyncTree, synced: SyncTree) {
    let ids = Set(remote.nodes.keys).union(local.nodes.keys).union(synced.nodes.keys)
    for id in ids.sorted() {
      merge(id, remote: remote, local: local, synced: synced)
    }
    var rounds = 0
    while rounds <= ids.count {
      rounds += 1
      // Each step can undo what another relies on (an item taken out of a read-only share
      // goes back into a folder deleted here, which must then be kept), so until none changes.
      let kept = keepParents(remote: remote, local: local, synced: synced)
      let broken = breakCycles(remote: remote, synced: synced)
      let out = keepOutOfReadOnly(remote: remote, synced: synced)
      if !kept && !broken && !out { break }
    }
    renameClashes(remote: remote, local: local)
  }

  /// Where `node` is, as far as merging goes: a parked item is still where it was.
  static func placement(of node: TreeNode, synced: TreeNode?, other: TreeNode?) -> Placement {
    guard node.placement.isMoving else { return node.placement }
    if let synced { return synced.placement }
    if let other, !other.placement.isMoving { return other.placement }
    return node.placement.unparked
  }

  private static func choose<Value: Equatable>(_ local: Value, _ remote: Value, base: Value?)
    -> (Value, conflict: Bool)
  {
    if local == remote || local == base { return (remote, false) }
    if remote == base { return (local, false) }
    return (remote, true)
  }

  private mutating func merge(
    _ id: ItemID, remote: SyncTree, local: SyncTree, synced: SyncTree
  ) {
    let base = synced[id]
    switch (local[id], remote[id]) {
    case (let l?, let r?):
      if remote.isReadOnly(inside: r.placement.parent) {
        // Inside a read-only share: the server's, and a local edit is kept aside.
        target.insert(r)
        if l.kind != r.kind, l.kind != base?.kind, l.kind.revision != nil { conflicts.insert(id) }
        return
      }
      let lp = Self.placement(of: l, synced: base, other: r)
      let rp = Self.placement(of: r, synced: base, other: l)
      let (placement, _) = Self.choose(lp, rp, base: base?.placement)
      if placement != rp { placedFromLocal.insert(id) }
      var kind = r.kind
      if case .document(let lr) = l.kind, case .document(let rr) = r.kind {
        let (revision, conflict) = Self.choose(lr, rr, base: base?.kind.revision)
        kind = .document(revision)
        if conflict { conflicts.insert(id) }
        if r.access == .readOnly, revision != rr {
          // A read-only shared document: the participant's edit becomes their own document.
          kind = r.kind
          conflicts.insert(id)
        }
      }
      target.insert(TreeNode(id: id, placement: placement, kind: kind, access: r.access))
    case (let l?, nil):
      let placement = Self.placement(of: l, synced: base, other: nil)
      if let base, base.kind == l.kind, base.placement == placement { return }
      placedFromLocal.insert(id)
      target.insert(TreeNode(id: id, placement: placement, kind: l.kind))
    case (nil, let r?):
      if r.access == .readOnly || remote.isReadOnly(inside: r.placement.parent) {
        // A read-only share, or something in one, deleted here: the server keeps it, so it
        // comes back.
        target.insert(r)
        return
      }
      let placement = Self.placement(of: r, synced: base, other: nil)
      if let base, base.kind == r.kind, base.placement == placement { return }
      target.insert(TreeNode(id: id, placement: placement, kind: r.kind, access: r.access))
    case (nil, nil):
      return
    }
  }

  /// Keeps every folder that holds a kept item, though a side deleted it. Returns whether it
  /// kept any.
  private mutating func keepParents(remote: SyncTree, local: SyncTree, synced: SyncTree) -> Bool {
    var changed = false
    var work = target.nodes.keys.sorted()
    while let id = work.popLast() {
      guard let node = target[id], let parent = node.placement.parent, target[parent] == nil
      else { continue }
      if let r = remote[parent] {
        let placement = Self.placement(of: r, synced: synced[parent], other: local[parent])
        target.insert(TreeNode(id: parent, placement: placement, kind: .folder))
      } else if let l = local[parent] {
        let placement = Self.placement(of: l, synced: synced[parent], other: nil)
        target.insert(TreeNode(id: parent, placement: placement, kind: .folder))
        placedFromLocal.insert(parent)
      } else {
        // Its folder is on neither side (it was parked, and the folder it came from is gone):
        // the item goes to the top of the drive.
        target.insert(
          TreeNode(
            id: id, placement: Placement(parent: nil, name: node.placement.name), kind: node.kind))
      }
      work.append(parent)
      changed = true
    }
    return changed
  }

  /// Undoes local moves that make a folder its own ancestor. Returns whether it undid any.
  private mutating func breakCycles(remote: SyncTree, synced: SyncTree) -> Bool {
    var changed = false
    for id in target.nodes.keys.sorted() {
      var path: [ItemID] = []
      var seen: Set<ItemID> = []
      var current: ItemID? = id
      while let each = current, !seen.contains(each) {
        seen.insert(each)
        path.append(each)
        current = target[each]?.placement.parent
      }
      guard let start = current, let from = path.firstIndex(of: start) else { continue }
      let cycle = path[from...]
      let movedHere = cycle.filter { placedFromLocal.contains($0) }.sorted()
      for each in movedHere.isEmpty ? [cycle.min()!] : movedHere {
        guard var node = target[each] else { continue }
        if let r = remote[each], !movedHere.isEmpty {
          node.placement = Self.placement(of: r, synced: synced[each], other: nil)
        } else {
          node.placement = Placement(parent: nil, name: node.placement.name)
        }
        placedFromLocal.remove(each)
        target.insert(node)
      }
      changed = true
    }
    return changed
  }

  /// Takes out of read-only shares what this account put there: its own items moved in go back
  /// where the server has them, and new ones go to the top of the drive, as its own. Returns
  /// whether it took any out.
  private mutating func keepOutOfReadOnly(remote: SyncTree, synced: SyncTree) -> Bool {
    var changed = false
    for id in target.nodes.keys.sorted() {
      guard var node = target[id], let parent = node.placement.parent, remote[parent] != nil,
        target.isReadOnly(inside: parent)
      else { continue }
      if let r = remote[id] {
        if remote.isReadOnly(inside: r.placement.parent) { continue }
        node.placement = Self.placement(of: r, synced: synced[id], other: nil)
      } else {
        node.placement = Placement(parent: nil, name: node.placement.name)
        renamed.insert(id)
      }
      target.insert(node)
      changed = true
    }
    return changed
  }

  /// Renames items that would share a name with another: the server's holder keeps it.
  private mutating func renameClashes(remote: SyncTree, local: SyncTree) {
    var holders: [Placement: [ItemID]] = [:]
    for (id, node) in target.nodes { holders[node.placement, default: []].append(id) }
    for (placement, ids) in holders.sorted(by: { $0.key.description < $1.key.description })
    where ids.count > 1 {
      let keeper =
        ids.first { remote.item(at: placement) == $0 } ?? ids.first {
          local.item(at: placement) == $0
        } ?? ids.min()!
      for id in ids.sorted() where id != keeper {
        guard var node = target[id] else { continue }
        var taken = Set(
          target.children(of: placement.parent).compactMap { target[$0]?.placement.name })
        for tree in [remote, local] {
          for child in tree.children(of: placement.parent) {
            if let name = tree[child]?.placement.name { taken.insert(name) }
          }
        }
        node.placement.name = UniqueName.make(placement.name, marker: nil, taken: taken)
        target.insert(node)
        renamed.insert(id)
      }
    }
  }
}
