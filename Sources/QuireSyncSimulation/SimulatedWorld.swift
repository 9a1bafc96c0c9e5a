import QuireSyncPlanning

/// The server, the devices and what people wrote: the state one simulated history acts on.
struct SimulatedWorld {
  var server = SimulatedServer()
  var devices: [SimulatedDevice]
  /// The people using the devices, and what they saved.
  private var person = SimulatedPerson()
  /// Another account that shares with them, read-only.
  private var owner = SimulatedOwner()

  init(devices: Int, planner: @escaping SimulatedDevice.Planner) {
    self.devices = (0..<devices).map {
      var device = SimulatedDevice(number: $0)
      device.planner = planner
      return device
    }
  }

  mutating func apply(
    _ step: SimulationStep, outcome: inout SimulationOutcome, trace: ((String) -> Void)?
  ) {
    switch step {
    case .user(let device, let action, let pick):
      person.act(action, pick: pick, on: &devices[device])
    case .pull(let device, let count):
      devices[device].pull(server, count: count)
    case .plan(let device):
      devices[device].plan()
      outcome.plans += 1
    case .execute(let device, let count, let chance):
      var random = SeededGenerator(seed: chance)
      var operations = devices[device].pending
      operations.shuffle(using: &random)
      let chosen = operations.prefix(count)
      for operation in chosen {
        let fault = random.next() % 100
        if fault < 8 {
          trace?("  \(operation) (dropped)")
          continue
        }
        if fault < 12 {
          let done = devices[device].executeUnrecorded(operation, server: &server)
          trace?("  \(operation)\(done ? "" : " (refused)") (answer lost)")
          continue
        }
        let done = devices[device].execute(operation, server: &server)
        if fault < 16 { devices[device].execute(operation, server: &server) }
        trace?("  \(operation)\(done ? "" : " (refused)")\(fault < 16 ? " (repeated)" : "")")
      }
      devices[device].pending.removeAll { chosen.contains($0) }
    case .crash(let device):
      devices[device].pending = []
    case .owner(let action, let pick):
      owner.act(action, pick: pick, on: &server)
    }
  }

  func check(_ outcome: inout SimulationOutcome) {
    for device in devices where device.local != server.tree || device.synced != server.tree {
      outcome.diverged = true
      outcome.violations.append(
        "device \(device.number) differs from the server: local \(Self.show(device.local)), "
          + "synced \(Self.show(device.synced)), server \(Self.show(server.tree))")
    }
    for node in server.tree.nodes.values where node.placement.isMoving {
      outcome.violations.append("a moving name was left: \(node)")
    }
    let current = Set(server.tree.nodes.values.compactMap(\.kind.revision))
    outcome.lost = person.unsaved(current).map(\.rawValue).sorted()
  }

  static func show(_ tree: SyncTree) -> String {
    "[" + tree.nodes.values.map(\.description).sorted().joined(separator: ", ") + "]"
  }
}
