import Foundation

extension FileWrapper {
  /// Reads the file, link or package at `url`.
  ///
  /// A package's names and attributes are read now; members' bytes when first asked for (unless
  /// `options` has ``ReadingOptions/immediate``). If a save of the package was interrupted, it is
  /// finished or undone first, so the wrapper always shows one whole version.
  ///
  /// - Throws: ``QuireError`` with ``QuireError/Code-swift.struct/notFound``,
  ///   ``QuireError/Code-swift.struct/permissionDenied`` and so on, naming the path.
  public convenience init(url: URL, options: ReadingOptions = []) throws(QuireError) {
    self.init(state: State(content: .regularFile(Data())))
    try read(from: url, options: options)
  }

  /// Re-reads the wrapper from `url`, replacing its kind, children, contents and attributes.
  public func read(from url: URL, options: ReadingOptions = []) throws(QuireError) {
    adopt(try PackageReader(options: options).read(path: url.standardizedFileURL.path))
  }

  /// Replaces this wrapper's state with one freshly read, keeping its place in its parent.
  func adopt(_ read: State) {
    var fresh = read
    let children = state.withLock { state -> [FileWrapper] in
      fresh.parent = state.parent
      fresh.keyInParent = state.keyInParent
      fresh.generation = state.generation &+ 1
      state = fresh
      if case .directory(let directory) = fresh.content { return Array(directory.children.values) }
      return []
    }
    for child in children { child.state.withLock { $0.parent = self } }
  }

  /// Whether the item at `url` differs from what this wrapper was read from: a different kind,
  /// size or modification date, or for a directory, different names or changed members.
  public func needsToBeUpdated(fromPath url: URL) -> Bool {
    guard let fresh = try? FileWrapper(url: url) else { return true }
    return !sameMetadata(as: fresh)
  }

  private func sameMetadata(as other: FileWrapper) -> Bool {
    let (mine, theirs) = (state.withLock { $0 }, other.state.withLock { $0 })
    switch (mine.content, theirs.content) {
    case (.regularFile, .regularFile):
      return mine.attributes.modificationDate == theirs.attributes.modificationDate
        && mine.attributes.size == theirs.attributes.size
    case (.symbolicLink(let a), .symbolicLink(let b)):
      return a == b
    case (.directory(let a), .directory(let b)):
      guard Set(a.children.keys) == Set(b.children.keys) else { return false }
      return a.children.allSatisfy { key, child in child.sameMetadata(as: b.children[key]!) }
    default:
      return false
    }
  }

  /// Whether the wrapper's contents are the same as the item at `url`: same kind, same bytes,
  /// same link destination, and for directories the same names with matching contents.
  public func matchesContents(of url: URL) -> Bool {
    guard let other = try? FileWrapper(url: url) else { return false }
    return matchesContents(of: other)
  }

  func matchesContents(of other: FileWrapper) -> Bool {
    if isDirectory {
      guard let mine = fileWrappers, let theirs = other.fileWrappers,
        Set(mine.keys) == Set(theirs.keys)
      else { return false }
      return mine.allSatisfy { key, child in child.matchesContents(of: theirs[key]!) }
    }
    if isSymbolicLink { return other.symbolicLinkDestination == symbolicLinkDestination }
    guard other.isRegularFile, let a = try? contents(), let b = try? other.contents() else {
      return false
    }
    return a == b
  }
}
