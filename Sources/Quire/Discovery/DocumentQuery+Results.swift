import Foundation

extension DocumentQuery {
  /// Where a query is: NSMetadataQuery's gathering and live phases.
  public enum Phase: Sendable, Hashable {
    /// The initial gather is under way; `found` items so far.
    case gathering(found: Int)
    /// The initial gather finished: ``Results/items`` is the whole result.
    case gathered
    /// A batch of live updates.
    case updated
  }

  /// What a query reports: the whole sorted result, and what changed since the last report, so a
  /// user interface can animate the difference.
  public struct Results: Sendable {
    /// The phase this report belongs to.
    public var phase: Phase
    /// Every matching item, sorted (empty while gathering).
    public var items: [Item]
    /// Items that appeared since the last report.
    public var added: [Item] = []
    /// Items whose attributes changed.
    public var changed: [Item] = []
    /// Items that went away (deleted, moved out of the scopes, or no longer matching).
    public var removed: [Item] = []
    /// Items that moved or were renamed within the scopes: the old URL and the item now.
    public var moved: [Move] = []
    /// The items grouped by the query's grouping key (empty without one).
    public var groups: [String: [Item]] = [:]
  }

  /// An item that moved.
  public struct Move: Sendable, Hashable {
    /// Where it was.
    public var from: URL
    /// The item where it is now.
    public var item: Item
  }

  /// What results can be grouped by.
  public enum GroupingKey: Sendable, Hashable {
    /// The content type identifier.
    case contentType
    /// The folder holding the item.
    case folder
    /// Each tag (an item with two tags is in two groups; untagged items under "").
    case tag
  }
}
