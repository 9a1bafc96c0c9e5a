extension FileCoordinator {
  /// What a coordinated write does to the item (NSFileCoordinator.WritingOptions).
  public struct WritingOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Makes options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// The item is about to be deleted: its presenters (and those of items inside it) are asked
    /// to accommodate the deletion instead of to relinquish.
    public static let forDeleting = WritingOptions(rawValue: 1 << 0)
    /// The item is about to be moved: presenters of items inside a moved folder relinquish too.
    /// Call ``FileCoordinator/item(at:didMoveTo:)`` from the accessor after the move.
    public static let forMoving = WritingOptions(rawValue: 1 << 1)
    /// The write merges into the item: presenters save their changes first, as for a read.
    public static let forMerging = WritingOptions(rawValue: 1 << 2)
    /// The item is about to be replaced wholesale: its presenters relinquish, and are told it
    /// changed afterwards.
    public static let forReplacing = WritingOptions(rawValue: 1 << 3)
    /// Only metadata that does not depend on the contents (tags, permissions) changes:
    /// presenters are not asked to save or relinquish.
    public static let contentIndependentMetadataOnly = WritingOptions(rawValue: 1 << 4)
  }
}
