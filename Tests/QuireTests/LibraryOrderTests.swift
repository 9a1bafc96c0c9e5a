import Foundation
import QuireSync
import QuireSyncSimulation
import Testing

@testable import QuireApp

@Suite("The browser's sortable columns")
struct LibraryOrderTests {
  private static let states: [SyncItemState?] = [nil] + SyncItemState.allCases

  /// A listing in name order, as the live query gives it, with many ties in every column.
  private static func listing(_ random: inout SeededGenerator) -> [LibraryItem] {
    (0..<Int.random(in: 0...30, using: &random)).map { index in
      var item = LibraryItem(
        path: "Doc \(index)", name: "Doc \(index)",
        kind: ["folder", "mydoc", "text", "album", "other"].randomElement(using: &random)!,
        type: "public.data", isFolder: Bool.random(using: &random),
        size: Int64.random(in: 0...4, using: &random),
        modified: Date(timeIntervalSince1970: Double(Int.random(in: 0...4, using: &random))),
        tags: [], id: "\(index)")
      item.sync = states.randomElement(using: &random)!
      item.conflicts = Int.random(in: 0..<8, using: &random) == 0
      return item
    }
  }

  @Test("each column sorts both ways, ties keep their name order, and nothing is lost")
  func columns() {
    var random = SeededGenerator(seed: 30)
    for _ in 0..<300 {
      let items = Self.listing(&random)
      for key in LibraryOrder.Key.allCases {
        for order in ["asc", "desc"] {
          let sorted = LibraryOrder(sort: key.rawValue, order: order).sorted(items)
          #expect(sorted.map(\.id).sorted() == items.map(\.id).sorted())
          let rank = { (item: LibraryItem) -> Int in items.firstIndex { $0.id == item.id }! }
          for (left, right) in zip(sorted, sorted.dropFirst()) {
            let first = Self.value(of: left, key)
            let second = Self.value(of: right, key)
            if key == .name {
              #expect(order == "asc" ? rank(left) < rank(right) : rank(left) > rank(right))
            } else if first == second {
              #expect(rank(left) < rank(right), "ties stay in name order")
            } else {
              #expect(order == "asc" ? first < second : first > second)
            }
          }
        }
      }
    }
  }

  @Test("a first click sorts as Finder does: names A to Z, the newest and largest first")
  func naturalDirections() {
    #expect(LibraryOrder(sort: "name", order: nil).ascending)
    #expect(LibraryOrder(sort: "kind", order: nil).ascending)
    #expect(LibraryOrder(sort: "sync", order: nil).ascending)
    #expect(!LibraryOrder(sort: "date", order: nil).ascending)
    #expect(!LibraryOrder(sort: "size", order: nil).ascending)
    #expect(
      LibraryOrder(sort: "nonsense", order: "sideways") == LibraryOrder(sort: nil, order: nil))
  }

  @Test("sorting by sync state puts what needs attention first")
  func attentionFirst() {
    var broken = LibraryItem(
      path: "b", name: "b", kind: "text", type: "", isFolder: false, size: 0,
      modified: Date(), tags: [], id: "b")
    broken.sync = .error
    var cloud = broken
    cloud.id = "c"
    cloud.sync = .notDownloaded
    var current = broken
    current.id = "a"
    current.sync = .current
    var conflicted = current
    conflicted.id = "d"
    conflicted.conflicts = true
    let sorted = LibraryOrder(sort: "sync", order: nil).sorted([current, cloud, broken, conflicted])
    #expect(sorted.map(\.id) == ["b", "d", "c", "a"])
  }

  /// The column's value as a number to compare.
  private static func value(of item: LibraryItem, _ key: LibraryOrder.Key) -> Double {
    switch key {
    case .name: return 0
    case .kind:  // as shown: Album, File, Folder, MyDoc, Text
      return Double(["album", "other", "folder", "mydoc", "text"].firstIndex(of: item.kind)!)
    case .date: return item.modified.timeIntervalSince1970
    case .size: return item.isFolder ? -1 : Double(item.size)
    case .sync:
      if item.conflicts == true { return 0 }
      let ranks: [SyncItemState: Double] = [
        .error: 0, .downloadError: 0, .uploading: 1, .downloading: 1, .waiting: 2,
        .notDownloaded: 3, .current: 4,
      ]
      return item.sync.flatMap { ranks[$0] } ?? 5
    }
  }
}
