import Foundation

extension DocumentQuery {
  /// An attribute to sort results by.
  public enum SortKey: String, Sendable, Hashable, CaseIterable {
    /// The file name, ignoring case, numbers in order (`Doc 2` before `Doc 10`).
    case name
    /// The modification date.
    case modificationDate
    /// The creation date.
    case creationDate
    /// The size.
    case size
    /// The content type identifier.
    case contentType
    /// The first tag (untagged items last).
    case tags
  }

  /// One sort criterion; later descriptors break ties of earlier ones, and the path breaks the
  /// rest, so the order is stable.
  public struct SortDescriptor: Sendable, Hashable {
    /// The attribute.
    public var key: SortKey
    /// Whether smaller values come first.
    public var ascending: Bool

    /// Sorts by `key`.
    public init(_ key: SortKey, ascending: Bool = true) {
      self.key = key
      self.ascending = ascending
    }

    func compare(_ a: Item, _ b: Item) -> ComparisonResult {
      let result: ComparisonResult
      switch key {
      case .name: result = Self.naturalOrder(a.name, b.name)
      case .modificationDate: result = Self.order(a.modificationDate, b.modificationDate)
      case .creationDate: result = Self.order(a.creationDate, b.creationDate)
      case .size: result = Self.order(a.size, b.size)
      case .contentType: result = Self.order(a.contentType, b.contentType)
      case .tags: result = Self.order(a.tags.first ?? "\u{10FFFF}", b.tags.first ?? "\u{10FFFF}")
      }
      guard !ascending else { return result }
      switch result {
      case .orderedAscending: return .orderedDescending
      case .orderedDescending: return .orderedAscending
      case .orderedSame: return .orderedSame
      }
    }

    /// Finder-like order without allocating: ASCII letters ignore case, runs of digits compare
    /// as numbers (`Doc 2` before `Doc 10`), other bytes by value.
    static func naturalOrder(_ a: String, _ b: String) -> ComparisonResult {
      var left = a.utf8.makeIterator()
      var right = b.utf8.makeIterator()
      var x = left.next()
      var y = right.next()
      while let l = x, let r = y {
        if Self.isDigit(l) && Self.isDigit(r) {
          var leftNumber: UInt64 = 0
          var rightNumber: UInt64 = 0
          while let digit = x, Self.isDigit(digit) {
            leftNumber = leftNumber &* 10 &+ UInt64(digit - 48)
            x = left.next()
          }
          while let digit = y, Self.isDigit(digit) {
            rightNumber = rightNumber &* 10 &+ UInt64(digit - 48)
            y = right.next()
          }
          if leftNumber != rightNumber {
            return leftNumber < rightNumber ? .orderedAscending : .orderedDescending
          }
          continue
        }
        let (lf, rf) = (Self.folded(l), Self.folded(r))
        if lf != rf { return lf < rf ? .orderedAscending : .orderedDescending }
        x = left.next()
        y = right.next()
      }
      if x == nil && y == nil { return .orderedSame }
      return x == nil ? .orderedAscending : .orderedDescending
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 48 && byte <= 57 }
    private static func folded(_ byte: UInt8) -> UInt8 {
      byte >= 65 && byte <= 90 ? byte + 32 : byte
    }

    /// The order of two values: one function for every key but the name.
    static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
      a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
    }
  }

  /// Whether `a` comes before `b` under `descriptors`.
  static func precedes(_ a: Item, _ b: Item, by descriptors: [SortDescriptor]) -> Bool {
    for descriptor in descriptors {
      switch descriptor.compare(a, b) {
      case .orderedAscending: return true
      case .orderedDescending: return false
      case .orderedSame: continue
      }
    }
    return a.path < b.path
  }

  /// The positions of `items` in the order of `descriptors`: the same order as sorting with
  /// ``precedes(_:_:by:)``, about twice as fast on 100 000 items. The first descriptor's key is
  /// read out of each item once, so most comparisons touch one key, not two whole items (whose
  /// copies, a dozen fields each, were half a gather's sort); only ties compare the items.
  static func order(of items: [Item], by descriptors: [SortDescriptor]) -> [Int] {
    var order = Array(items.indices)
    guard let first = descriptors.first else {
      order.sort { items[$0].path < items[$1].path }
      return order
    }
    func sort<Key>(_ key: (Item) -> Key, _ compare: (Key, Key) -> ComparisonResult) {
      let keys = items.map(key)
      items.withUnsafeBufferPointer { items in
        keys.withUnsafeBufferPointer { keys in
          order.sort { a, b in
            switch compare(keys[a], keys[b]) {
            case .orderedAscending: return first.ascending
            case .orderedDescending: return !first.ascending
            case .orderedSame: return precedes(items[a], items[b], by: descriptors)
            }
          }
        }
      }
    }
    switch first.key {
    case .name: sort(\.name, SortDescriptor.naturalOrder)
    case .modificationDate: sort(\.modificationDate, SortDescriptor.order)
    case .creationDate: sort(\.creationDate, SortDescriptor.order)
    case .size: sort(\.size, SortDescriptor.order)
    case .contentType: sort(\.contentType, SortDescriptor.order)
    case .tags: sort({ $0.tags.first ?? "\u{10FFFF}" }, SortDescriptor.order)
    }
    return order
  }
}
