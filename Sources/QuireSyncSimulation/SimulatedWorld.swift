import QuireSyncPlanning

/// The server, the devices and what people wrote: the state one simulated history acts on.
struct SimulatedWorld {
  var server = SimulatedServer()
  var devices: [SimulatedDevice]
  /// Every revision a person saved.
  private var written: Set<ContentRevision> = []
  /// Revisions a person overwrote or deleted themselves.
  private var discarded: Set<ContentRevision> = []
  private static let names = ["a.txt", "b.txt", "c", "d", "a 2.txt"]

  init(devices: Int) {
    self.devices = (0..<devices).map { SimulatedDevice(number: $0) }
  }

  mutating func apply(
    _ step: SimulationStep, outcome: inout SimulationOutcome, trace: ((String) -> Void)?
  ) {
    switch step {
    case .user(let device, let action, let pick):
      act(action, pick: pick, on: device)
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
    }
  }

  private mutating func act(_ action: SimulationStep.UserAction, pick: UInt64, on index: Int) {
    var device = devices[index]
    defer { devices[index] = device }
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
      for id in items where device.local.isWithin(id, item) {
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
    outcome.lost = written.subtracting(server.versions).subtracting(discarded).map(\.rawValue)
      .sorted()
  }

  static func show(_ tree: SyncTree) -> String {
    "[" + tree.nodes.values.map(\.description).sorted().joined(separator: ", ") + "]"
  }
}
