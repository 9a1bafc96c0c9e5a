extension FileWrapper {
  /// How ``FileWrapper/write(to:options:originalContentsURL:)`` writes.
  ///
  /// Quire's writes are always atomic (old-or-new after a crash); ``atomic`` is accepted for
  /// source compatibility with Foundation.
  public struct WritingOptions: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Makes options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Write to a temporary location and swap it into place (always the case in Quire).
    public static let atomic = WritingOptions(rawValue: 1 << 0)
    /// After a successful write, set each written wrapper's ``FileWrapper/filename`` to the
    /// name it was written under.
    public static let withNameUpdating = WritingOptions(rawValue: 1 << 1)
  }
}
