import Foundation

extension FileWrapper {
  /// The children of a directory wrapper by key, or nil for other kinds.
  public var fileWrappers: [String: FileWrapper]? {
    state.withLock {
      if case .directory(let directory) = $0.content { directory.children } else { nil }
    }
  }

  /// Adds `child` to this directory under its preferred filename, or under a unique variant
  /// (`image 2.png`) if that name is taken, and returns the key used.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/wrongKind`` if this is not a directory, and
  ///   ``QuireError/Code-swift.struct/invalidName`` if the child has no usable preferred filename.
  @discardableResult
  public func addFileWrapper(_ child: FileWrapper) throws(QuireError) -> String {
    guard isDirectory else {
      throw QuireError(.wrongKind, "Only a directory wrapper can hold other wrappers.")
    }
    guard let preferred = child.preferredFilename else {
      throw QuireError(
        .invalidName, "A wrapper needs a preferred filename to be added to a directory.")
    }
    try FileName.validate(preferred)
    let key = state.withLock { state -> String in
      guard case .directory(let directory) = state.content else { return preferred }
      return FileName.unique(preferred) { directory.children[$0] != nil }
    }
    insert(child, forKey: key)
    return key
  }

  /// Adds a regular file with `contents` under `preferredFilename` (or a unique variant of it)
  /// and returns the key used.
  @discardableResult
  public func addRegularFile(withContents contents: Data, preferredFilename: String)
    throws(QuireError)
    -> String
  {
    let child = FileWrapper(regularFileWithContents: contents)
    child.preferredFilename = preferredFilename
    return try addFileWrapper(child)
  }

  /// Removes `child` from this directory. The next save deletes its file.
  public func removeFileWrapper(_ child: FileWrapper) {
    guard let key = keyForFileWrapper(child) else { return }
    let parent = state.withLock { state -> FileWrapper? in
      guard case .directory(var directory) = state.content else { return nil }
      state.content = .regularFile(nil)  // release the dictionary's storage while mutating
      directory.children[key] = nil
      if let location = directory.location, child.hasOrigin(in: location, named: key) {
        directory.removed[key] = child
      }
      directory.dirtyKeys.insert(key)
      state.content = .directory(directory)
      state.generation &+= 1
      return state.parent
    }
    child.state.withLock { child in
      if child.keyInParent == key {
        child.parent = nil
        child.keyInParent = nil
      }
    }
    if let parent, let ownKey = state.withLock({ $0.keyInParent }) {
      parent.noteChildChanged(key: ownKey)
    }
  }

  /// The key under which `child` is held by this directory, or nil.
  public func keyForFileWrapper(_ child: FileWrapper) -> String? {
    if let key = child.state.withLock({ $0.parent === self ? $0.keyInParent : nil }) {
      return key
    }
    return fileWrappers?.first { $0.value === child }?.key
  }

  /// Puts `child` at `key` (which the caller made unique) and marks the path changed.
  func insert(_ child: FileWrapper, forKey key: String) {
    let parent = state.withLock { state -> FileWrapper? in
      guard case .directory(var directory) = state.content else { return nil }
      state.content = .regularFile(nil)
      directory.children[key] = child
      directory.dirtyKeys.insert(key)
      if directory.removed[key] === child { directory.removed[key] = nil }  // back where it was
      state.content = .directory(directory)
      state.generation &+= 1
      return state.parent
    }
    child.state.withLock { child in
      child.parent = self
      child.keyInParent = key
    }
    if let parent, let ownKey = state.withLock({ $0.keyInParent }) {
      parent.noteChildChanged(key: ownKey)
    }
  }

  /// Records that the child at `key` changed, and tells the ancestors.
  func noteChildChanged(key: String) {
    let next = state.withLock { state -> (FileWrapper, String)? in
      guard case .directory(var directory) = state.content else { return nil }
      state.content = .regularFile(nil)
      directory.dirtyKeys.insert(key)
      state.content = .directory(directory)
      guard let parent = state.parent, let ownKey = state.keyInParent else { return nil }
      return (parent, ownKey)
    }
    if let (parent, ownKey) = next { parent.noteChildChanged(key: ownKey) }
  }

  /// Whether this wrapper was read from (or last written to) the item `name` in the folder at
  /// `location`.
  func hasOrigin(in location: DiskLocation, named name: String) -> Bool {
    state.withLock { state in
      guard let origin = state.origin else { return false }
      return origin.directory === location && origin.name == name
    }
  }
}
