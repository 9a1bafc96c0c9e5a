import QuireSyncPlanning
import QuireSyncSimulation
import Testing

/// The simulation in the test suite: a range of seeds must pass, and the simulation must catch
/// a planner that loses work (else a green run would prove nothing).
@Suite("Sync simulation")
struct SyncSimulationTests {
  /// 200 seeds here, on a thread of their own (``onThread(_:)``), not on one of the two
  /// cooperative threads a 2-core run has: every other test needs them. The many seeds run in
  /// a release build, as `scripts/test` runs `scripts/sim` (10 000 of three devices, 2 000 of
  /// five); 2 000 here in a debug build took a core for 90–220 s of the suite's 5 minutes, and
  /// tests with deadlines ran out of time beside it.
  @Test("200 seeds of three devices: converged, nothing lost, no violation")
  func seeds() async throws {
    let failed = try await onThread {
      let simulation = SyncSimulation(devices: 3)
      var failed: [String] = []
      for seed in UInt64(1)...200 {
        let (outcome, shrunk) = simulation.run(seed: seed)
        if !outcome.passed {
          failed.append(
            "seed \(seed): \(outcome.violations) lost \(outcome.lost); shrunk: "
              + (shrunk ?? []).map(\.description).joined(separator: " | "))
        }
      }
      return failed
    }
    let failures = failed.count
    #expect(failures == 0, "\(failed.prefix(3))")
  }

  @Test("a seed replays exactly: same history, same outcome")
  func replays() {
    let simulation = SyncSimulation(devices: 3)
    #expect(simulation.history(seed: 42) == simulation.history(seed: 42))
    #expect(simulation.history(seed: 42) != simulation.history(seed: 43))
    let one = simulation.run(simulation.history(seed: 42), seed: 42)
    let two = simulation.run(simulation.history(seed: 42), seed: 42)
    #expect(one.plans == two.plans && one.lost == two.lost && one.violations == two.violations)
  }

  @Test(
    "a planner that downloads over a local edit instead of keeping it aside is caught, and shrinks")
  func catchesLostEdits() {
    var simulation = SyncSimulation(devices: 2)
    simulation.planner = { remote, local, synced in
      SyncPlanner.plan(remote: remote, local: local, synced: synced).map { operation in
        guard case .keepAside(let node, _) = operation, let theirs = remote[node.id] else {
          return operation
        }
        return .download(theirs, replacing: node.kind.revision)
      }
    }
    var caught: (UInt64, [SimulationStep])?
    for seed in UInt64(1)...3000 where caught == nil {
      let (outcome, shrunk) = simulation.run(seed: seed)
      if !outcome.lost.isEmpty, let shrunk { caught = (seed, shrunk) }
    }
    #expect(caught != nil)
    if let (seed, shrunk) = caught {
      #expect(shrunk.count < simulation.history(seed: seed).count)
      #expect(!simulation.run(shrunk, seed: seed).lost.isEmpty)
    }
  }

  @Test("a planner that trashes the server's edit of an item deleted here is caught")
  func catchesDeletionBeatingModification() {
    var simulation = SyncSimulation(devices: 2)
    simulation.planner = { remote, local, synced in
      SyncPlanner.plan(remote: remote, local: local, synced: synced).map { operation in
        guard case .download(let node, nil) = operation, synced[node.id] != nil,
          let theirs = remote[node.id]
        else { return operation }
        return .trash(theirs, on: .remote)
      }
    }
    var caught = false
    for seed in UInt64(1)...3000 where !caught {
      caught = !simulation.run(seed: seed).outcome.lost.isEmpty
    }
    #expect(caught)
  }

  @Test("a planner that never uploads is caught: the devices diverge")
  func catchesDivergence() {
    var simulation = SyncSimulation(devices: 2)
    simulation.planner = { remote, local, synced in
      SyncPlanner.plan(remote: remote, local: local, synced: synced).filter {
        if case .upload = $0 { false } else { true }
      }
    }
    var caught = false
    for seed in UInt64(1)...200 where !caught {
      caught = !simulation.run(seed: seed).outcome.passed
    }
    #expect(caught)
  }

  @Test("a person deleting a folder deletes everything in it, at any depth")
  func deleteTakesTheSubtree() {
    var device = SimulatedDevice(number: 0)
    device.local = SyncTree([
      TreeNode(id: ItemID("a"), placement: Placement(parent: nil, name: "A"), kind: .folder),
      TreeNode(
        id: ItemID("b"), placement: Placement(parent: ItemID("a"), name: "B"), kind: .folder),
      TreeNode(
        id: ItemID("c"), placement: Placement(parent: ItemID("b"), name: "c.txt"),
        kind: .document(ContentRevision("x"))),
    ])
    var person = SimulatedPerson()
    // `pick` 0 chooses the first item by identity: folder "a".
    person.act(.delete, pick: 0, on: &device)
    #expect(device.local.count == 0)
  }
}
