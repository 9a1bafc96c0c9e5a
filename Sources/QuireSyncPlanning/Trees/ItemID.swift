/// The identity of one item of a drive: the same document or folder on the server and on every
/// device, whatever its name and wherever it moves.
///
/// The three trees are keyed by it, so a rename is a change of placement, never a delete and a
/// create.
public struct ItemID: Hashable, Comparable, Sendable, CustomStringConvertible {
  /// The identity as the server and the agent's state store it.
  public var rawValue: String

  /// An identity from its stored form.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Orders identities by their stored form, so that plans are the same on every run.
  public static func < (lhs: ItemID, rhs: ItemID) -> Bool { lhs.rawValue < rhs.rawValue }

  /// The stored form.
  public var description: String { rawValue }
}
