/// Where an item is: the folder that holds it and its name there.
public struct Placement: Hashable, Sendable, CustomStringConvertible {
  /// The folder that holds the item, or `nil` at the top of the drive.
  public var parent: ItemID?
  /// The item's name in that folder.
  public var name: String

  /// A placement in `parent` (`nil`: the top of the drive) under `name`.
  public init(parent: ItemID?, name: String) {
    self.parent = parent
    self.name = name
  }

  /// `parent/name`, for plans and failing seeds.
  public var description: String { "\(parent?.rawValue ?? "")/\(name)" }

  /// The prefix of the names the planner gives items on their way to a place that another item
  /// still holds (a swap of two names, or a folder moved into its own child). An item under
  /// such a name is moving: the planner takes it as still where it was, so the name never
  /// spreads to another device. Users do not name their files this way.
  public static let movingPrefix = ".quire-moving-"

  /// Whether the item is parked under a moving name (see ``movingPrefix``).
  public var isMoving: Bool { name.hasPrefix(Self.movingPrefix) }

  /// The moving name for `id`, which is called `name`, in `parent`: unique to the item, so two
  /// parked items never clash, and holding its name, so that an item left parked (its
  /// synced record gone) goes back to it.
  public static func moving(_ id: ItemID, called name: String, in parent: ItemID?) -> Placement {
    Placement(parent: parent, name: movingPrefix + id.rawValue + "~" + name)
  }

  /// The placement a parked item had before it stepped aside: the same folder, its own name.
  public var unparked: Placement {
    guard isMoving, let tilde = name.firstIndex(of: "~") else { return self }
    return Placement(parent: parent, name: String(name[name.index(after: tilde)...]))
  }
}
