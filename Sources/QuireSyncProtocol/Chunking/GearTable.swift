/// The 256 random-looking 64-bit values of the gear hash, one per byte value. They are part of
/// the chunking protocol (every device must cut the same bytes the same way), so they come from
/// SplitMix64 with a fixed seed rather than from a random source.
enum GearTable {
  static let seed: UInt64 = 0x5175_6972_6543_4443  // "QuireCDC"

  static let values: [UInt64] = {
    var state = seed
    return (0..<256).map { _ in
      state &+= 0x9E37_79B9_7F4A_7C15
      var value = state
      value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
      value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
      return value ^ (value >> 31)
    }
  }()
}
