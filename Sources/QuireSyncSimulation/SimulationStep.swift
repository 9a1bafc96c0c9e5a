/// One step of a simulated history. Its numbers are resolved against the state when the step
/// runs (an item is `pick` modulo the items there are), so any part of a history is still a
/// history: that is what lets a failing seed shrink.
public enum SimulationStep: Hashable, Sendable, CustomStringConvertible {
  /// A person changes something on a device's disk.
  case user(device: Int, action: UserAction, pick: UInt64)
  /// A device reads `count` more entries of the server's journal.
  case pull(device: Int, count: Int)
  /// A device plans from its trees as they are.
  case plan(device: Int)
  /// A device carries out up to `count` of its planned operations, in an order and with
  /// faults drawn from `chance`: a request dropped, an answer lost (the server or the disk
  /// changed, then the agent crashed before it recorded that), a request repeated.
  case execute(device: Int, count: Int, chance: UInt64)
  /// A device's agent crashes and restarts from its persisted state: its plan is lost.
  case crash(device: Int)
  /// Another account shares something read-only with this one, or changes what it shares.
  case owner(action: SimulatedOwner.Action, pick: UInt64)

  /// What a person does.
  public enum UserAction: Hashable, Sendable, CaseIterable {
    /// Saves new contents into a document.
    case edit
    /// Makes a new document.
    case createDocument
    /// Makes a new folder.
    case createFolder
    /// Moves or renames an item.
    case move
    /// Deletes an item, and everything in it.
    case delete
    /// Saves a document the safe way: new contents into a new file, renamed over the old one,
    /// so the document gets a new identity.
    case safeSave
    /// Exchanges the names of two items (`renameat2` with `RENAME_EXCHANGE`).
    case exchange
  }

  /// The step, as a shrunk history prints it.
  public var description: String {
    switch self {
    case .user(let device, let action, let pick): "device \(device): user \(action) #\(pick)"
    case .pull(let device, let count): "device \(device): pull \(count)"
    case .plan(let device): "device \(device): plan"
    case .execute(let device, let count, let chance):
      "device \(device): execute \(count) (chance \(chance))"
    case .crash(let device): "device \(device): crash"
    case .owner(let action, let pick): "owner: \(action) #\(pick)"
    }
  }
}
