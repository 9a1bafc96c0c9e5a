import QuireSyncPlanning

/// The people using the simulated devices: what they do to the files, and every revision they
/// saved, so that the simulation can tell a lost save from one they overwrote themselves.
public struct SimulatedPerson: Sendable {
  /// Every revision saved.
  public private(set) var written: Set<ContentRevision> = []
  /// Revisions the person overwrote or deleted themselves.
  public private(set) var discarded: Set<ContentRevision> = []
  /// Few names, so that items clash.
  private static let names = ["a.txt", "b.txt", "c", "d", "a 2.txt"]

  /// Nobody has saved anything yet.
  public init() {}

  /// The revisions saved that are not in `current` (the revisions of the server's documents
  /// at the end) and that the person did not overwrite or delete on some device: lost saves.
  /// A version alone does not count: a save another save of this person did not replace must
  /// still be a document, or a deletion or a late download beat it.
  public func unsaved(_ current: Set<ContentRevision>) -> Set<ContentRevision> {
    written.subtracting(current).subtracting(discarded)
  }

  /// Does `action` on `device`'s disk; `pick` chooses the item, the folder and the name.
  /// Does nothing where the action is impossible (no document to edit, the name taken).
  public mutating func act(
    _ action: SimulationStep.UserAction, pick: UInt64, on device: inout SimulatedDevice
  ) {
    let items = device.local.nodes.keys.sorted()
    let folders = [nil] + items.filter { device.local[$0]?.isFolder == true }.map(Optional.some)
    let parent = folders[Int((pick >> 8) % UInt64(folders.count))]
    let placement = Placement(
      parent: parent, name: Self.names[Int((pick >> 16) % UInt64(Self.names.count))])
    let item = items.isEmpty ? nil : items[Int(pick % UInt64(items.count))]
    switch action {
    case .edit:
      let documents = items.filter { device.local[$0]?.isFolder == false }
      guard !documents.isEmpty,
        var node = device.local[documents[Int(pick % UInt64(documents.count))]]
      else { return }
      if let old = node.kind.revision { discarded.insert(old) }
      node.kind = .document(write())
      device.local.insert(node)
    case .createDocument, .createFolder:
      guard device.local.canHold(placement, for: ItemID("")) else { return }
      let kind: NodeKind = action == .createFolder ? .folder : .document(write())
      device.local.insert(TreeNode(id: device.makeID(), placement: placement, kind: kind))
    case .move:
      guard let item, var node = device.local[item], device.local.canHold(placement, for: item)
      else { return }
      node.placement = placement
      device.local.insert(node)
    case .safeSave:
      let documents = items.filter { device.local[$0]?.isFolder == false }
      guard !documents.isEmpty,
        let old = device.local[documents[Int(pick % UInt64(documents.count))]]
      else { return }
      if let revision = old.kind.revision { discarded.insert(revision) }
      device.local.remove(old.id)
      device.local.insert(
        TreeNode(id: device.makeID(), placement: old.placement, kind: .document(write())))
    case .exchange:
      guard let item, var one = device.local[item] else { return }
      let siblings = device.local.children(of: one.placement.parent).subtracting([item]).sorted()
      guard !siblings.isEmpty,
        var other = device.local[siblings[Int((pick >> 24) % UInt64(siblings.count))]]
      else { return }
      (one.placement, other.placement) = (other.placement, one.placement)
      device.local.remove(one.id)
      device.local.insert(other)
      device.local.insert(one)
    case .delete:
      guard let item else { return }
      // Everything under it, found before anything is removed (a child whose folder is gone
      // is no longer "within" it).
      let doomed = items.filter { device.local.isWithin($0, item) }
      for id in doomed {
        if let revision = device.local[id]?.kind.revision { discarded.insert(revision) }
        device.local.remove(id)
      }
    }
  }

  private mutating func write() -> ContentRevision {
    let revision = ContentRevision("w\(written.count)")
    written.insert(revision)
    return revision
  }
}
