import QuireSyncPlanning
import QuireSyncSimulation
import Testing

/// Dropbox's CanopyCheck, for Quire's planner: random correlated trees (a synced tree, and a
/// local and a remote tree each changed from it by random edits, creations, moves, swaps,
/// safe-saves and deletions), the plan's operations applied in a shuffled order with a fifth of
/// them failing, and the planner asked again until its plan is empty.
@Suite("Sync planner on random trees (CanopyCheck)")
struct SyncPlannerCanopyTests {
  struct Case {
    var device: SimulatedDevice
    var server: SimulatedServer
    /// Revisions either side changed from the synced tree: none may be lost.
    var changed: Set<ContentRevision>
  }

  /// Draws three correlated trees from `seed`.
  static func draw(seed: UInt64) -> Case {
    var random = SeededGenerator(seed: seed)
    var person = SimulatedPerson()
    var base = SimulatedDevice(number: 0)
    for _ in 0..<(4 + random.next() % 20) {
      let action: SimulationStep.UserAction =
        random.next() % 3 == 0 ? .createFolder : .createDocument
      person.act(action, pick: random.next(), on: &base)
    }
    var local = base
    var remote = SimulatedDevice(number: 1)
    remote.local = base.local
    for _ in 0..<(random.next() % 8) {
      let action = SimulationStep.UserAction.allCases.randomElement(using: &random)!
      person.act(action, pick: random.next(), on: &local)
    }
    for _ in 0..<(random.next() % 8) {
      let action = SimulationStep.UserAction.allCases.randomElement(using: &random)!
      person.act(action, pick: random.next(), on: &remote)
    }
    var device = SimulatedDevice(number: 2)
    device.local = local.local
    device.synced = base.local
    let server = SimulatedServer(tree: remote.local)
    var changed: Set<ContentRevision> = []
    for tree in [local.local, remote.local] {
      for node in tree.nodes.values {
        if let revision = node.kind.revision, base.local[node.id]?.kind != node.kind {
          changed.insert(revision)
        }
      }
    }
    return Case(device: device, server: server, changed: changed)
  }

  @Test("3 000 random tree triples converge within the bound, lose nothing, leave no moving name")
  func randomTrees() {
    var failures: [String] = []
    for seed in UInt64(1)...3000 {
      var random = SeededGenerator(seed: seed &* 7919)
      var (device, server, changed) = {
        let c = Self.draw(seed: seed)
        return (c.device, c.server, c.changed)
      }()
      let bound = 2 * (device.local.count + server.tree.count) + 10
      var converged = false
      for _ in 0..<bound where !converged {
        device.pull(server, count: .max)
        device.plan()
        guard !device.pending.isEmpty else {
          converged = true
          continue
        }
        for operation in device.pending.shuffled(using: &random) where random.next() % 5 != 0 {
          device.execute(operation, server: &server)
        }
      }
      let kept = Set(server.tree.nodes.values.compactMap(\.kind.revision))
      if !converged {
        failures.append("seed \(seed): no empty plan in \(bound) rounds")
      } else if device.local != server.tree || device.synced != server.tree {
        failures.append("seed \(seed): the device and the server differ")
      } else if !changed.isSubset(of: kept) {
        failures.append("seed \(seed): lost \(changed.subtracting(kept).sorted())")
      } else if server.tree.nodes.values.contains(where: \.placement.isMoving) {
        failures.append("seed \(seed): a moving name was left")
      }
    }
    let failed = failures.count
    #expect(failed == 0, "\(failures.prefix(5))")
  }

  @Test("the planner is a function: the same trees give the same plan")
  func deterministic() {
    for seed in UInt64(1)...200 {
      var c = Self.draw(seed: seed)
      c.device.pull(c.server, count: .max)
      let trees = (c.device.remote, c.device.local, c.device.synced)
      #expect(
        SyncPlanner.plan(remote: trees.0, local: trees.1, synced: trees.2)
          == SyncPlanner.plan(remote: trees.0, local: trees.1, synced: trees.2))
    }
  }
}
