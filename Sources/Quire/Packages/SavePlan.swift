/// The changes between a package wrapper and the package on disk it was read from, found by
/// walking only the keys marked changed — so planning costs O(changes), not O(members).
struct SavePlan {
  enum Change {
    case place(path: [String], wrapper: FileWrapper)
    case remove(path: [String])
    case attributes(path: [String], wrapper: FileWrapper, attributes: FileAttributes)
  }

  var changes: [Change] = []
  /// Folders whose change marks this save clears if it succeeds, with their generation.
  var visited: [(wrapper: FileWrapper, generation: UInt64)] = []
  /// Wrappers whose files this save deletes or replaces; they keep their bytes in memory.
  var removed: [FileWrapper] = []

  init(root: FileWrapper) throws(QuireError) {
    try visit(root, path: [])
    if let attributes = Self.changedAttributes(of: root) {
      changes.append(.attributes(path: [], wrapper: root, attributes: attributes))
    }
  }

  private mutating func visit(_ folder: FileWrapper, path: [String]) throws(QuireError) {
    let snapshot = folder.state.withLock { state -> (FileWrapper.Directory, UInt64)? in
      guard case .directory(let directory) = state.content else { return nil }
      return (directory, state.generation)
    }
    guard let (directory, generation) = snapshot, let location = directory.location else { return }
    visited.append((folder, generation))
    for key in directory.dirtyKeys.union(directory.removed.keys).sorted() {
      let childPath = path + [key]
      guard let child = directory.children[key] else {
        if let old = directory.removed[key] {
          changes.append(.remove(path: childPath))
          removed.append(old)
          removePlaceholder(of: old, at: path, key: key)
        }
        continue
      }
      if let old = directory.removed[key], old !== child {
        removed.append(old)
        removePlaceholder(of: old, at: path, key: key)
      }
      guard child.hasOrigin(in: location, named: key) else {
        try FileName.validate(key, in: location.path)
        changes.append(.place(path: childPath, wrapper: child))
        continue
      }
      if child.isDirectory { try visit(child, path: childPath) }
      if let attributes = Self.changedAttributes(of: child) {
        changes.append(.attributes(path: childPath, wrapper: child, attributes: attributes))
      }
    }
  }

  /// A member removed or replaced while in the cloud takes its placeholder with it.
  private mutating func removePlaceholder(of old: FileWrapper, at path: [String], key: String) {
    guard old.state.withLock({ $0.isInCloud }) else { return }
    changes.append(.remove(path: path + ["." + key + CloudPlaceholder.suffix]))
  }

  private static func changedAttributes(of wrapper: FileWrapper) -> FileAttributes? {
    wrapper.state.withLock { $0.attributesChanged ? $0.attributes : nil }
  }
}
