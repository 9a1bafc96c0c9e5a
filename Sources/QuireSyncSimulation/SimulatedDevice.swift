import QuireSyncPlanning

/// One device as the simulation models it: its disk (the local tree), its agent's persisted
/// state (the synced tree, and the remote tree at its journal cursor), and the plan it is
/// carrying out.
///
/// Local operations check what they expect against the disk, as the real executor does under a
/// coordinated write: a download refuses to replace a revision other than the one planned, so a
/// user's edit made after the plan is never overwritten.
public struct SimulatedDevice: Sendable {
  /// The device's number, part of the identities it makes.
  public let number: Int
  /// What is on disk.
  public var local = SyncTree()
  /// The last state both sides agreed on.
  public var synced = SyncTree()
  /// The server's tree as far as the journal has been read.
  public private(set) var remote = SyncTree()
  /// How many journal entries have been read.
  public private(set) var cursor = 0
  /// The operations of the last plan not yet carried out.
  public var pending: [SyncOperation] = []
  private var made = 0
  /// The journal index of the change each item of `remote` is at, so that an entry read late
  /// never undoes a change the device learnt from its own commit's answer.
  private var seen: [ItemID: Int] = [:]

  /// Decides the operations from (remote, local, synced): ``SyncPlanner`` unless a test of the
  /// simulation itself gives a broken one, to see that the simulation catches what it breaks.
  public var planner: Planner = { SyncPlanner.plan(remote: $0, local: $1, synced: $2) }

  /// A planner: the operations for the remote, local and synced trees.
  public typealias Planner = @Sendable (SyncTree, SyncTree, SyncTree) -> [SyncOperation]

  /// A device with nothing on it.
  public init(number: Int) { self.number = number }

  /// A new identity, unique among devices (as the server's identities are).
  public mutating func makeID() -> ItemID {
    made += 1
    return ItemID("d\(number)-\(made)")
  }

  /// Reads up to `count` more entries of `server`'s journal.
  public mutating func pull(_ server: SimulatedServer, count: Int) {
    let end = cursor + min(server.journal.count - cursor, max(count, 0))
    while cursor < end {
      learn(server, cursor)
      cursor += 1
    }
  }

  private mutating func learn(_ server: SimulatedServer, _ index: Int) {
    let entry = server.journal[index]
    guard index > seen[entry.id, default: -1] else { return }
    seen[entry.id] = index
    if let node = entry.node { remote.insert(node) } else { remote.remove(entry.id) }
  }

  /// Whether the device has read the whole journal.
  public func isCaughtUp(with server: SimulatedServer) -> Bool { cursor == server.journal.count }

  /// Plans again from the device's three trees.
  public mutating func plan() {
    pending = planner(remote, local, synced)
  }

  /// Carries out `operation`: a commit goes to `server`, the rest to the disk or the state.
  /// Returns whether it took effect.
  @discardableResult
  public mutating func execute(_ operation: SyncOperation, server: inout SimulatedServer) -> Bool {
    guard carryOut(operation, server: &server) else { return false }
    switch operation {
    case .record, .forget: break
    default:
      for id in operation.items {
        if let node = SyncPlanner.settled(
          id, after: operation, remote: remote, local: local, synced: synced)
        {
          synced.insert(node)
        } else {
          synced.remove(id)
        }
      }
    }
    return true
  }

  /// Carries out `operation` and then crashes before recording anything: the server or the
  /// disk changed, but neither the remote tree nor the synced tree knows.
  @discardableResult
  public mutating func executeUnrecorded(
    _ operation: SyncOperation, server: inout SimulatedServer
  ) -> Bool {
    let (remote, seen) = (self.remote, self.seen)
    let done = carryOut(operation, server: &server)
    (self.remote, self.seen) = (remote, seen)
    return done
  }

  private mutating func carryOut(_ operation: SyncOperation, server: inout SimulatedServer) -> Bool
  {
    switch operation {
    case .upload(let node, _):
      guard local[node.id]?.kind == node.kind else { return false }
      return answer(server.commit(operation), server)
    case .commitTogether(let operations):
      // Each upload in the commit sends what is on disk now: a revision the disk no longer
      // holds is never sent.
      for case .upload(let node, _) in operations where local[node.id]?.kind != node.kind {
        return false
      }
      return answer(server.commit(operation), server)
    case .createFolder(_, .remote), .move(_, .remote, _, _), .trash(_, .remote):
      return answer(server.commit(operation), server)
    case .download(let node, let replacing):
      guard let revision = node.kind.revision, server.versions.contains(revision) else {
        return false
      }
      if let current = local[node.id] {
        guard current.kind.revision == replacing, replacing != nil else { return false }
        local.insert(
          TreeNode(id: node.id, placement: current.placement, kind: node.kind, access: node.access))
      } else {
        guard replacing == nil, local.canHold(node.placement, for: node.id) else { return false }
        local.insert(node)
      }
      return true
    case .createFolder(let node, .local):
      if let current = local[node.id] { return current.isFolder }
      guard local.canHold(node.placement, for: node.id) else { return false }
      local.insert(node)
      return true
    case .move(let id, .local, let from, let to), .resolveClash(let id, let from, let to):
      guard var current = local[id], current.placement == from, local.canHold(to, for: id)
      else { return false }
      current.placement = to
      local.insert(current)
      return true
    case .trash(let node, .local):
      guard local[node.id] == node, local.children(of: node.id).isEmpty else { return false }
      local.remove(node.id)
      return true
    case .keepAside(let node, let placement):
      guard local[node.id] == node, local.canHold(placement, for: node.id) else { return false }
      local.remove(node.id)
      local.insert(TreeNode(id: makeID(), placement: placement, kind: node.kind))
      return true
    case .record(let node):
      synced.insert(node)
      return true
    case .forget(let id):
      synced.remove(id)
      return true
    }
  }

  /// Takes a commit's answer into the remote tree, as the real agent does from the response.
  private mutating func answer(_ answer: SimulatedServer.Answer, _ server: SimulatedServer)
    -> Bool
  {
    switch answer {
    case .refused: return false
    case .unchanged: return true
    case .changed(let entries):
      for index in entries { learn(server, index) }
      return true
    }
  }
}
