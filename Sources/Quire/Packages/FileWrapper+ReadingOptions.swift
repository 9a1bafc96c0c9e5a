extension FileWrapper {
  /// How ``FileWrapper/init(url:options:)`` and ``FileWrapper/read(from:options:)`` read.
  public struct ReadingOptions: OptionSet, Hashable, Sendable {
    /// The raw bits.
    public let rawValue: Int
    /// Makes options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Read every member's bytes now, instead of when first asked for.
    public static let immediate = ReadingOptions(rawValue: 1 << 0)
    /// Copy members' bytes into memory instead of mapping them from the file.
    public static let withoutMapping = ReadingOptions(rawValue: 1 << 1)
  }
}
