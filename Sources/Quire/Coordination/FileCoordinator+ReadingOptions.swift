extension FileCoordinator {
  /// How a coordinated read treats presenters and the item (NSFileCoordinator.ReadingOptions).
  public struct ReadingOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Makes options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Read what is on disk now: presenters are not asked to save their changes first.
    public static let withoutChanges = ReadingOptions(rawValue: 1 << 0)
    /// If the item is a symbolic link, coordinate and read the item it points to.
    public static let resolvesSymbolicLink = ReadingOptions(rawValue: 1 << 1)
    /// Only metadata that is at hand is read: presenters are neither asked to save nor to
    /// relinquish (and, for synced items, nothing is downloaded).
    public static let immediatelyAvailableMetadataOnly = ReadingOptions(rawValue: 1 << 2)
    /// The item is read to be sent elsewhere: a folder or package is handed to the accessor as
    /// a zip archive (the portable form of ``PackageArchive``), removed afterwards.
    public static let forUploading = ReadingOptions(rawValue: 1 << 3)
  }
}
