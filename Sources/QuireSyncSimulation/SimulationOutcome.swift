/// What one seed's run found.
public struct SimulationOutcome: Sendable {
  /// The seed.
  public var seed: UInt64
  /// Whether a device ended with a tree other than the server's.
  public var diverged = false
  /// Revisions a person saved that are no document on the server at the end, though that
  /// person did not overwrite or delete them on any device.
  public var lost: [String] = []
  /// Other broken invariants: no convergence within the bound, moving names left behind.
  public var violations: [String] = []
  /// How many plans the devices made.
  public var plans = 0

  /// Whether every invariant held.
  public var passed: Bool { !diverged && lost.isEmpty && violations.isEmpty }
}
