import QuireSyncPlanning

/// Runs devices with the real ``SyncPlanner`` against a ``SimulatedServer``, driven by one seed,
/// and checks the invariants a user relies on.
///
/// A seed draws a history: people editing, creating, moving and deleting on each device; agents
/// reading the journal a few entries at a time, planning, and carrying out their plans late, out
/// of order, with requests dropped and repeated; agents crashing; another account sharing
/// read-only folders and changing them (``SimulatedOwner``). Then the people stop, the
/// network heals, and every device syncs until its plan is empty. Every device must then hold
/// the server's tree, and every revision a person saved must be current or a version unless that
/// person overwrote or deleted it.
public struct SyncSimulation: Sendable {
  /// How many devices share the account.
  public var devices: Int
  /// How many rounds of sync the quiet end may take before it counts as not converging.
  public var roundBound = 60
  /// The planner every device uses.
  public var planner: SimulatedDevice.Planner = {
    SyncPlanner.plan(remote: $0, local: $1, synced: $2)
  }

  /// A simulation of `devices` devices.
  public init(devices: Int) { self.devices = max(devices, 1) }

  /// The history `seed` draws.
  public func history(seed: UInt64) -> [SimulationStep] {
    var random = SeededGenerator(seed: seed)
    let length = 10 + Int(random.next() % 150)
    return (0..<length).map { _ in
      let device = Int(random.next() % UInt64(devices))
      switch random.next() % 100 {
      case 0..<35:
        let actions = SimulationStep.UserAction.allCases
        let action = actions[Int(random.next() % UInt64(actions.count))]
        return .user(device: device, action: action, pick: random.next())
      case 35..<55: return .pull(device: device, count: 1 + Int(random.next() % 8))
      case 55..<75: return .plan(device: device)
      case 75..<93:
        return .execute(device: device, count: 1 + Int(random.next() % 6), chance: random.next())
      case 93..<97:
        let actions = SimulatedOwner.Action.allCases
        let action = actions[Int(random.next() % UInt64(actions.count))]
        return .owner(action: action, pick: random.next())
      default: return .crash(device: device)
      }
    }
  }

  /// Runs seed `seed`; on a failure, `shrunk` holds the shortest failing history found.
  public func run(seed: UInt64) -> (outcome: SimulationOutcome, shrunk: [SimulationStep]?) {
    let steps = history(seed: seed)
    let outcome = run(steps, seed: seed)
    guard !outcome.passed else { return (outcome, nil) }
    return (outcome, shrink(steps, seed: seed))
  }

  /// Runs one history and checks the invariants.
  public func run(_ steps: [SimulationStep], seed: UInt64, trace: ((String) -> Void)? = nil)
    -> SimulationOutcome
  {
    var world = SimulatedWorld(devices: devices, planner: planner)
    var outcome = SimulationOutcome(seed: seed)
    for step in steps {
      trace?("\(step)")
      world.apply(step, outcome: &outcome, trace: trace)
    }
    trace?("quiet: every device syncs until its plan is empty")
    var converged = false
    for _ in 0..<roundBound where !converged {
      converged = true
      for index in world.devices.indices {
        world.devices[index].pull(world.server, count: .max)
        world.devices[index].plan()
        outcome.plans += 1
        trace?(
          "  device \(index) remote \(SimulatedWorld.show(world.devices[index].remote)) local "
            + "\(SimulatedWorld.show(world.devices[index].local)) synced "
            + "\(SimulatedWorld.show(world.devices[index].synced))")
        guard !world.devices[index].pending.isEmpty else { continue }
        converged = false
        for operation in world.devices[index].pending {
          let done = world.devices[index].execute(operation, server: &world.server)
          trace?("  device \(index): \(operation)\(done ? "" : " (refused)")")
        }
        world.devices[index].pending = []
      }
    }
    if !converged { outcome.violations.append("no convergence in \(roundBound) rounds") }
    world.check(&outcome)
    return outcome
  }

  private func shrink(_ steps: [SimulationStep], seed: UInt64) -> [SimulationStep] {
    var steps = steps
    var chunk = max(steps.count / 2, 1)
    while chunk >= 1 {
      var start = 0
      while start < steps.count {
        var fewer = steps
        fewer.removeSubrange(start..<min(start + chunk, steps.count))
        if !run(fewer, seed: seed).passed { steps = fewer } else { start += chunk }
      }
      chunk /= 2
    }
    return steps
  }
}
