/// The operations that bring one side (the disk or the server) to the merged tree.
struct SidePlan {
  let side: SyncSide
  let tree: SyncTree
  let merged: MergedTree

  func operations() -> [SyncOperation] {
    let target = merged.target
    var operations: [SyncOperation] = []
    for id in Set(target.nodes.keys).union(tree.nodes.keys).sorted() {
      if side == .local, merged.conflicts.contains(id), let have = tree[id] {
        operations.append(.keepAside(have, as: asidePlacement(for: have)))
        continue
      }
      switch (target[id], tree[id]) {
      case (let want?, nil):
        if isFree(want.placement, for: id) == .free { operations.append(create(want)) }
      case (let want?, let have?):
        if let revision = want.kind.revision, revision != have.kind.revision {
          operations.append(
            side == .local
              ? .download(want, replacing: have.kind.revision)
              : .upload(want, base: have.kind.revision))
        }
        if want.placement != have.placement, let move = move(have, to: want.placement) {
          operations.append(move)
        }
      case (nil, let have?):
        if tree.children(of: id).isEmpty { operations.append(.trash(have, on: side)) }
      case (nil, nil):
        break
      }
    }
    return operations
  }

  private func create(_ node: TreeNode) -> SyncOperation {
    switch (side, node.kind) {
    case (_, .folder): .createFolder(node, on: side)
    case (.local, .document): .download(node, replacing: nil)
    case (.remote, .document): .upload(node, base: nil)
    }
  }

  private enum Readiness: Equatable {
    case free
    case waiting
    case heldBy(ItemID)
    case insideItself
  }

  private func isFree(_ placement: Placement, for id: ItemID) -> Readiness {
    if let parent = placement.parent {
      guard let folder = tree[parent], folder.isFolder else { return .waiting }
      if tree.isWithin(parent, id) { return .insideItself }
    }
    if let holder = tree.item(at: placement), holder != id { return .heldBy(holder) }
    return .free
  }

  private func move(_ have: TreeNode, to placement: Placement) -> SyncOperation? {
    let id = have.id
    let parked: Placement
    switch isFree(placement, for: id) {
    case .free:
      return side == .local && merged.renamed.contains(id)
        ? .resolveClash(id, from: have.placement, to: placement)
        : .move(id, on: side, from: have.placement, to: placement)
    case .waiting:
      // Its folder is not there yet. If the folder it is in is going (a folder replaced by a
      // new one of the same name, with its contents moved in), it steps out to the top of the
      // drive: the old folder cannot go while it holds the item, nor the new one come while
      // the old one holds the name. If another item is meant to take its name meanwhile (a
      // file renamed, a folder made under its old name), it steps aside. Else it waits.
      if let folder = have.placement.parent, merged.target[folder] == nil {
        parked = .moving(id, called: have.placement.unparked.name, in: nil)
      } else {
        guard let other = merged.target.item(at: have.placement), other != id else { return nil }
        parked = .moving(id, called: have.placement.unparked.name, in: have.placement.parent)
      }
    case .heldBy(let holder):
      // The holder moves away or goes to the trash first. Two items that swap names wait for
      // each other, so the smaller identity steps aside under its moving name. A folder to be
      // trashed waits for what is in it, which may be this item: then it steps aside too.
      if merged.target[holder] == nil {
        guard !tree.children(of: holder).isEmpty else { return nil }
      } else {
        guard id < holder else { return nil }
      }
      // In the folder it is going to, which exists: the folder it leaves may be the holder.
      parked = .moving(id, called: have.placement.unparked.name, in: placement.parent)
    case .insideItself:
      parked = .moving(id, called: have.placement.unparked.name, in: nil)
    }
    guard have.placement != parked, isFree(parked, for: id) == .free else { return nil }
    return .move(id, on: side, from: have.placement, to: parked)
  }

  /// "Name (my changes)" beside the document, named after where it is meant to be (not its
  /// moving name), in the folder it is in on disk, or at the top of the drive if that folder is
  /// a read-only share.
  private func asidePlacement(for node: TreeNode) -> Placement {
    // Never inside a read-only share: the copy is the participant's own document.
    let inShare = merged.target.isReadOnly(inside: node.placement.parent)
    let parent = inShare ? nil : node.placement.parent
    var taken: Set<String> = []
    for tree in [tree, merged.target] {
      for child in tree.children(of: parent) {
        if let name = tree[child]?.placement.name { taken.insert(name) }
      }
    }
    let meant = merged.target[node.id]?.placement.name ?? node.placement.name
    return Placement(
      parent: parent, name: UniqueName.make(meant, marker: "my changes", taken: taken))
  }
}
