import Foundation

extension DocumentQuery {
  /// Which items a query keeps: NSPredicate's role, over ``Item`` attributes.
  public indirect enum Predicate: Sendable, Hashable {
    /// Every item.
    case all
    /// The name matches a wildcard pattern (`*` and `?`), ignoring case, like `LIKE[c]`.
    case nameLike(String)
    /// The content type is or conforms to the identifier, such as `public.image`.
    case conforms(to: String)
    /// The size is at least, or at most, this many bytes.
    case sizeAtLeast(Int64)
    case sizeAtMost(Int64)
    /// Modified after, or before, the date.
    case modifiedAfter(Date)
    case modifiedBefore(Date)
    /// Created after, or before, the date.
    case createdAfter(Date)
    case createdBefore(Date)
    /// Carries the tag (ignoring case).
    case tagged(String)
    /// Has this downloading status.
    case downloadingStatus(DownloadingStatus)
    /// Is a folder.
    case isFolder
    /// All, any, or none of the predicates hold.
    case and([Predicate])
    case or([Predicate])
    case not(Predicate)

    /// Whether `item` satisfies the predicate; `registry` decides conformance.
    public func evaluate(_ item: Item, registry: TypeRegistry) -> Bool {
      switch self {
      case .all: true
      case .nameLike(let pattern): Self.matches(item.name, pattern: pattern)
      case .conforms(let identifier):
        item.contentType == identifier
          || registry.type(withIdentifier: item.contentType)?.conforms(to: identifier) == true
      case .sizeAtLeast(let size): item.size >= size
      case .sizeAtMost(let size): item.size <= size
      case .modifiedAfter(let date): item.modificationDate > date
      case .modifiedBefore(let date): item.modificationDate < date
      case .createdAfter(let date): item.creationDate > date
      case .createdBefore(let date): item.creationDate < date
      case .tagged(let tag): item.tags.contains { $0.caseInsensitiveCompare(tag) == .orderedSame }
      case .downloadingStatus(let status): item.downloadingStatus == status
      case .isFolder: item.isFolder
      case .and(let all): all.allSatisfy { $0.evaluate(item, registry: registry) }
      case .or(let any): any.contains { $0.evaluate(item, registry: registry) }
      case .not(let inner): !inner.evaluate(item, registry: registry)
      }
    }

    /// Wildcard match ignoring case: `*` is any run of characters, `?` one character.
    static func matches(_ name: String, pattern: String) -> Bool {
      let text = Array(name.lowercased())
      let glob = Array(pattern.lowercased())
      var (t, g) = (0, 0)
      var (star, mark) = (-1, 0)
      while t < text.count {
        if g < glob.count && (glob[g] == "?" || glob[g] == text[t]) {
          t += 1
          g += 1
        } else if g < glob.count && glob[g] == "*" {
          star = g
          mark = t
          g += 1
        } else if star >= 0 {
          g = star + 1
          mark += 1
          t = mark
        } else {
          return false
        }
      }
      while g < glob.count && glob[g] == "*" { g += 1 }
      return g == glob.count
    }
  }
}
