import Foundation
import QuireSync

/// The order of a listing, as the browser's sortable columns ask for it: a column and a
/// direction. Pure: a function of the items, so the tests try it on generated listings.
struct LibraryOrder: Equatable {
  /// The column a listing is sorted by.
  enum Key: String, CaseIterable {
    /// The name, in human order ("Doc 2" before "Doc 10"): the live query's own order.
    case name
    /// The kind, by the name the page shows ("Album", "File", "Folder", "MyDoc", …).
    case kind
    /// The date modified.
    case date
    /// The size; folders, which have none, come below every document.
    case size
    /// The sync state, what needs attention first: errors, then transfers, then waiting,
    /// then in the cloud, then current, then not synced at all.
    case sync

    /// The direction a first click on the column sorts in, as Finder does: names and kinds
    /// A to Z, the newest and the largest first, what needs attention first.
    var naturallyAscending: Bool { self != .date && self != .size }
  }

  /// The column.
  var key: Key
  /// Whether the smallest comes first.
  var ascending: Bool

  /// The order a request's `sort` and `order` (`asc` or `desc`) parameters name. An unknown
  /// column is the name; no direction is the column's natural one.
  init(sort: String?, order: String?) {
    key = Key(rawValue: sort ?? "") ?? .name
    switch order {
    case "asc": ascending = true
    case "desc": ascending = false
    default: ascending = key.naturallyAscending
    }
  }

  /// What an item is sorted by; only the column's own value needs to be filled in.
  struct Entry {
    var kind = ""
    var modified = Date.distantPast
    var size: Int64 = 0
    var isFolder = false
    var sync: SyncItemState?
    var conflicts = false
  }

  /// `items` (in name order, as the query gives them) in this order. Items that tie keep
  /// their name order, whatever the direction, so a listing never shuffles between reloads.
  /// `entry` gives what an item is sorted by; in name order it is never asked.
  func sorted<Item>(_ items: [Item], entry: (Item) -> Entry) -> [Item] {
    if key == .name { return ascending ? items : items.reversed() }
    let entries = items.map(entry)
    let order = entries.indices.sorted { left, right in
      let comparison = compare(entries[left], entries[right])
      if comparison != .orderedSame { return (comparison == .orderedAscending) == ascending }
      return left < right
    }
    return order.map { items[$0] }
  }

  /// The page's items in this order.
  func sorted(_ items: [LibraryItem]) -> [LibraryItem] {
    sorted(items) {
      Entry(
        kind: $0.kind, modified: $0.modified, size: $0.size, isFolder: $0.isFolder,
        sync: $0.sync, conflicts: $0.conflicts == true)
    }
  }

  private func compare(_ left: Entry, _ right: Entry) -> ComparisonResult {
    switch key {
    case .name: return .orderedSame
    case .kind: return Self.compare(Self.kindName(left.kind), Self.kindName(right.kind))
    case .date: return Self.compare(left.modified, right.modified)
    case .size:  // a folder has no size (the page shows "—"): smaller than any document
      return Self.compare(left.isFolder ? -1 : left.size, right.isFolder ? -1 : right.size)
    case .sync: return Self.compare(Self.attention(left), Self.attention(right))
    }
  }

  private static func compare<Value: Comparable>(_ left: Value, _ right: Value) -> ComparisonResult
  {
    left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
  }

  /// A kind as the page names it (columns.js), so "A to Z" reads A to Z on screen.
  private static func kindName(_ kind: String) -> String {
    let names = [
      "album": "Album", "folder": "Folder", "mydoc": "MyDoc", "text": "Text",
      "sicd": "SimpleiCloudDocument",
    ]
    return names[kind] ?? "File"
  }

  /// How soon an item's sync state wants the user's eye: 0 first.
  private static func attention(_ item: Entry) -> Int {
    if item.conflicts { return 0 }
    switch item.sync {
    case .error, .downloadError: return 0
    case .uploading, .downloading: return 1
    case .waiting: return 2
    case .notDownloaded: return 3
    case .current: return 4
    case nil: return 5
    }
  }
}
