/// Where a shared folder the participant moved went, worked out from where the drive finds its
/// documents: paths in, paths out, so a test can ask it about any tree.
enum MovedFolderLocation {
  /// The documents to look for, with their paths inside the shared folder `name`: up to `limit`
  /// of `items` (whose paths `path` gives) that are in it. Those synced under another name,
  /// before an owner's rename is read, say nothing of where the folder went, and are passed
  /// over rather than counted against the limit.
  static func probes<Item>(
    _ items: some Sequence<Item>, path: (Item) -> String, folder name: String, limit: Int = 4
  ) -> [(item: Item, inner: String)] {
    let inside = name + "/"
    var result: [(item: Item, inner: String)] = []
    for item in items where result.count < limit {
      let each = path(item)
      guard each.hasPrefix(inside) else { continue }
      result.append((item, String(each.dropFirst(inside.count))))
    }
    return result
  }

  /// The folder's path now (drive-relative), given a document's path inside it (`inner`) and
  /// where the drive found that document (`found`); nil if the document is not at the same
  /// place inside a folder there (it moved on its own, or out of the folder).
  static func folder(inner: String, foundAt found: String) -> String? {
    guard found.hasSuffix("/" + inner), found.count > inner.count + 1 else { return nil }
    return String(found.dropLast(inner.count + 1))
  }
}
