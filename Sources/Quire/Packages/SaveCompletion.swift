/// Marks what a successful save wrote as saved: written wrappers now live at their new place
/// on disk, and change marks are cleared only where nothing changed during the save.
enum SaveCompletion {
  static func finish(
    _ plan: SavePlan, placed: [(path: [String], written: TreeWriter.Written)],
    _ options: FileWrapper.WritingOptions
  ) {
    for (folder, generation) in plan.visited {
      folder.state.withLock { state in
        guard state.generation == generation, case .directory(var directory) = state.content else {
          return
        }
        state.content = .regularFile(nil)
        directory.dirtyKeys.removeAll()
        directory.removed.removeAll()
        state.content = .directory(directory)
      }
    }
    for wrapper in plan.removed { wrapper.detachFromDisk() }
    for change in plan.changes {
      if case .attributes(_, let wrapper, let attributes) = change {
        wrapper.state.withLock { state in
          if state.attributes == attributes { state.attributesChanged = false }
        }
      }
    }
    guard let root = plan.visited.first?.wrapper else { return }
    for (path, written) in placed {
      guard let location = location(of: Array(path.dropLast()), in: root) else { continue }
      adopt(written, in: location, name: path.last!, options)
    }
  }

  /// Records that `written` now lives as `name` in the folder at `location`.
  static func adopt(
    _ written: TreeWriter.Written, in location: DiskLocation, name: String,
    _ options: FileWrapper.WritingOptions
  ) {
    let childLocation = written.wrapper.state.withLock { state -> DiskLocation? in
      state.origin = FileWrapper.Origin(directory: location, name: name)
      if options.contains(.withNameUpdating) { state.filename = name }
      let unchanged = state.generation == written.generation
      if unchanged { state.attributesChanged = false }
      guard case .directory(var directory) = state.content else { return nil }
      state.content = .regularFile(nil)
      let ownLocation = DiskLocation(parent: location, name: name)
      directory.location = ownLocation
      if unchanged {
        directory.dirtyKeys.removeAll()
        directory.removed.removeAll()
      }
      state.content = .directory(directory)
      return ownLocation
    }
    guard let childLocation else { return }
    for child in written.children { adopt(child.item, in: childLocation, name: child.key, options) }
  }

  private static func location(of path: [String], in root: FileWrapper) -> DiskLocation? {
    var folder = root
    for key in path {
      guard let child = folder.fileWrappers?[key] else { return nil }
      folder = child
    }
    return folder.state.withLock { state in
      if case .directory(let directory) = state.content { directory.location } else { nil }
    }
  }
}
