/// Decides what to do to bring a device and the server together: a function of the three trees
/// and nothing else.
///
/// It does no I/O, reads no clock and awaits nothing, so it is tested alone on random trees and
/// run inside a deterministic simulation (`QuireSyncSimulation`). The executor carries out the
/// operations, reports what actually happened as changes to the trees, and asks again. An
/// operation whose expectation no longer holds is refused, and the next plan accounts for it;
/// plans converge to the empty plan when both sides and the synced tree agree.
public enum SyncPlanner {
  /// The operations that are ready now, in a stable order. Operations that wait for others
  /// (a move into a folder not yet made, the trash of a folder not yet empty) come in a later
  /// plan.
  public static func plan(remote: SyncTree, local: SyncTree, synced: SyncTree) -> [SyncOperation] {
    let merged = MergedTree(remote: remote, local: local, synced: synced)
    var operations: [SyncOperation] = []
    operations += SidePlan(side: .local, tree: local, merged: merged).operations()
    operations += remoteOperations(remote: remote, merged: merged)
    let target = merged.target
    let ids = Set(remote.nodes.keys).union(local.nodes.keys).union(synced.nodes.keys)
    for id in ids.sorted() {
      if let want = target[id] {
        if want.matches(local[id]), want.matches(remote[id]), synced[id] != want {
          operations.append(.record(want))
        }
      } else if local[id] == nil, remote[id] == nil, synced[id] != nil {
        operations.append(.forget(id))
      }
    }
    return operations
  }

  /// The server's operations. When one parks an item under a moving name, the operations that
  /// follow it are worked out on the server's tree as it would then be, until nothing is left
  /// parked, and all of them go as one commit.
  private static func remoteOperations(remote: SyncTree, merged: MergedTree) -> [SyncOperation] {
    let first = SidePlan(side: .remote, tree: remote, merged: merged).operations()
    guard first.contains(where: parks) else { return first }
    var tree = remote
    var together: [SyncOperation] = []
    var next = first
    for _ in 0...(remote.count + merged.target.count) where !next.isEmpty {
      for operation in next {
        guard let after = tree.committing(operation) else { continue }
        tree = after
        together.append(operation)
      }
      let parked = tree.nodes.values.contains {
        $0.placement.isMoving && remote[$0.id]?.placement != $0.placement
      }
      if !parked { return [.commitTogether(together)] }
      next = SidePlan(side: .remote, tree: tree, merged: merged).operations()
    }
    return first.filter { !parks($0) }
  }

  private static func parks(_ operation: SyncOperation) -> Bool {
    if case .move(_, .remote, _, let to) = operation { return to.isMoving }
    return false
  }
}
