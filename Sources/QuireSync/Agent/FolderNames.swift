/// One string for each folder path that ``SyncedRecord``s hold, so that the records of a
/// folder's hundred files share one copy of its path instead of a hundred.
///
/// A folder's string stays here while the agent runs, even once no record is in it any more
/// (a renamed folder). ``SyncedTree`` starts the table again from its records when it holds
/// more folders than it has records in use, so what stays is bounded by the tree.
struct FolderNames: Sendable {
  private var strings: [String: String] = [:]

  /// An empty table.
  init() {}

  /// How many folders it holds.
  var count: Int { strings.count }

  /// The string of `folder` the table holds, or `folder` itself, added to it.
  mutating func shared(_ folder: Substring) -> String {
    let key = String(folder)
    if let held = strings[key] { return held }
    strings[key] = key
    return key
  }

  /// Holds `folder`, the very string given, if it holds none for that path yet.
  mutating func hold(_ folder: String) {
    if strings[folder] == nil { strings[folder] = folder }
  }
}
