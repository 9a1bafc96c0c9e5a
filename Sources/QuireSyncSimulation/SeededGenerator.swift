/// The simulation's only source of chance: SplitMix64 from one seed, so a seed replays exactly.
///
/// Swift's `SystemRandomNumberGenerator` cannot be seeded, and no package this project may use
/// ships a seeded one; SplitMix64 is a dozen lines and well studied.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
  private var state: UInt64

  /// A generator that yields the same numbers for the same `seed`.
  public init(seed: UInt64) { state = seed }

  /// The next 64 random bits.
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
