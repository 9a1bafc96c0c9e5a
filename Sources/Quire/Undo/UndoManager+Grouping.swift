extension UndoManager {
  /// Opens a group, nested in the open one if any.
  public func beginUndoGrouping() {
    openGroups.append(Group())
    notify(.didOpenGroup)
  }

  /// Closes the innermost open group. A closed top-level group with actions goes on the undo
  /// stack (or the redo stack while undoing); an empty one is dropped.
  public func endUndoGrouping() {
    guard let group = openGroups.popLast() else { return }
    notify(.willCloseGroup)
    if openGroups.isEmpty {
      automaticGroupIsOpen = false
      guard !group.isEmpty else { return }
      if isUndoing {
        redoStack.append(group)
      } else {
        undoStack.append(group)
        trim()
      }
      notify(.didCloseGroup(isDiscardable: false))
    } else if !group.isEmpty {
      openGroups[openGroups.count - 1].children.append(group)
    }
  }

  /// Closes the group opened by itself for the current event. Hosts without a run loop (a
  /// command-line tool, a request handler) call this at the end of each user event; on the main
  /// actor it also happens by itself at the end of the current turn.
  public func endEvent() {
    if automaticGroupIsOpen && openGroups.count == 1 { endUndoGrouping() }
  }

  func beginAutomaticGroup() {
    beginUndoGrouping()
    automaticGroupIsOpen = true
    Task { @MainActor [weak self] in self?.endEvent() }
  }

  /// Reverses the last group: its actions run in reverse order, and what they register becomes
  /// the redo group. An open automatic group is closed first, as in Foundation.
  public func undo() { replay(undoing: true) }

  /// Reapplies the last undone group; what it registers goes back on the undo stack.
  public func redo() { replay(undoing: false) }

  private func replay(undoing: Bool) {
    endEvent()
    guard openGroups.isEmpty, let group = undoing ? undoStack.popLast() : redoStack.popLast() else {
      return
    }
    notify(undoing ? .willUndo : .willRedo)
    if undoing { isUndoing = true } else { isRedoing = true }
    beginUndoGrouping()
    run(group)
    setActionName(group.name)
    endUndoGrouping()
    isUndoing = false
    isRedoing = false
    notify(undoing ? .didUndo : .didRedo)
  }

  private func run(_ group: Group) {
    for child in group.children.reversed() { run(child) }
    for action in group.actions.reversed() {
      if let target = action.target { action.perform(target) }
    }
  }

  /// Forgets every undo and redo action.
  public func removeAllActions() {
    undoStack.removeAll()
    redoStack.removeAll()
    openGroups.removeAll()
    automaticGroupIsOpen = false
  }

  /// Forgets the actions registered for `target`, keeping everyone else's.
  public func removeAllActions(withTarget target: AnyObject) {
    func filter(_ group: Group) -> Group {
      var group = group
      group.actions.removeAll { $0.target === target || $0.target == nil }
      group.children = group.children.map(filter).filter { !$0.isEmpty }
      return group
    }
    undoStack = undoStack.map(filter).filter { !$0.isEmpty }
    redoStack = redoStack.map(filter).filter { !$0.isEmpty }
    openGroups = openGroups.map(filter)
  }
}
