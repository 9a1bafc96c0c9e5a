extension FileWrapper {
  /// Loads (maps) the bytes of this wrapper and everything below it that are still only on disk,
  /// so they stay readable after a save deletes or replaces their files. A mapping costs no
  /// reading; files that are already gone are skipped. Any other failure fails the save before
  /// it changes anything, rather than destroy bytes an undo may still need.
  func keepContentsInMemory() throws(QuireError) {
    if isRegularFile {
      // A member in the cloud stays there: downloading it inside a save (which holds the
      // package's lock the download needs) would wait for ever.
      if isInCloud { return }
      do { _ = try contents() } catch  where error.code == .notFound {}
    } else if let children = fileWrappers {
      for child in children.values { try child.keepContentsInMemory() }
    }
  }

  /// Forgets where this wrapper and everything below it were on disk, after a save deleted or
  /// replaced them: adding it back writes it in full.
  func detachFromDisk() {
    let children = state.withLock { state -> [FileWrapper] in
      state.origin = nil
      guard case .directory(var directory) = state.content else { return [] }
      state.content = .regularFile(nil)
      directory.location = nil
      directory.removed.removeAll()
      state.content = .directory(directory)
      return Array(directory.children.values)
    }
    for child in children { child.detachFromDisk() }
  }
}
