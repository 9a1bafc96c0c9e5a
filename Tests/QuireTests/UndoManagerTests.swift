import Testing

@testable import Quire

@MainActor
final class Counter {
  var value = 0
  let undoManager: UndoManager

  init(_ undoManager: UndoManager) { self.undoManager = undoManager }

  func set(_ newValue: Int, name: String = "Set") {
    let old = value
    value = newValue
    undoManager.registerUndo(withTarget: self) { $0.set(old, name: name) }
    undoManager.setActionName(name)
  }
}

@Suite("UndoManager")
@MainActor
struct UndoManagerTests {
  @Test("changes in one event form one group; undo and redo reverse and reapply it")
  func groupsByEvent() {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    counter.set(2)
    manager.endEvent()
    counter.set(3, name: "Three")
    manager.endEvent()
    #expect(manager.undoActionName == "Three")
    manager.undo()
    #expect(counter.value == 2)
    manager.undo()
    #expect(counter.value == 0, "both changes of the first event undo together")
    #expect(!manager.canUndo && manager.canRedo)
    manager.redo()
    #expect(counter.value == 2)
    manager.redo()
    #expect(counter.value == 3)
    #expect(manager.undoActionName == "Three" && !manager.canRedo)
  }

  @Test("the group closes by itself at the end of the main actor's turn")
  func automaticClose() async {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    #expect(manager.groupingLevel == 1)
    await Task.yield()
    #expect(manager.groupingLevel == 0)
    counter.set(2)
    await Task.yield()
    manager.undo()
    #expect(counter.value == 1)
  }

  @Test("nested groups undo as one, innermost last registered first")
  func nesting() {
    let manager = UndoManager()
    manager.groupsByEvent = false
    let counter = Counter(manager)
    manager.beginUndoGrouping()
    counter.set(1)
    manager.beginUndoGrouping()
    counter.set(2)
    manager.endUndoGrouping()
    counter.set(3)
    manager.endUndoGrouping()
    #expect(manager.groupingLevel == 0)
    manager.undo()
    #expect(counter.value == 0)
    manager.redo()
    #expect(counter.value == 3)
  }

  @Test("without groupsByEvent, registrations outside a group are dropped")
  func noAutomaticGroups() {
    let manager = UndoManager()
    manager.groupsByEvent = false
    Counter(manager).set(1)
    #expect(!manager.canUndo)
  }

  @Test("levelsOfUndo keeps only the newest groups")
  func levels() {
    let manager = UndoManager()
    manager.levelsOfUndo = 2
    let counter = Counter(manager)
    for value in 1...4 {
      counter.set(value)
      manager.endEvent()
    }
    manager.undo()
    manager.undo()
    #expect(counter.value == 2)
    #expect(!manager.canUndo)
  }

  @Test("a new change clears the redo stack")
  func newChangeClearsRedo() {
    let manager = UndoManager()
    let counter = Counter(manager)
    counter.set(1)
    manager.endEvent()
    manager.undo()
    #expect(manager.canRedo)
    counter.set(5)
    manager.endEvent()
    #expect(!manager.canRedo)
  }

  @Test("disabling registration nests")
  func disableNests() {
    let manager = UndoManager()
    let counter = Counter(manager)
    manager.disableUndoRegistration()
    manager.disableUndoRegistration()
    manager.enableUndoRegistration()
    counter.set(1)
    #expect(!manager.isUndoRegistrationEnabled && !manager.canUndo)
    manager.enableUndoRegistration()
    counter.set(2)
    #expect(manager.canUndo)
  }

  @Test("removeAllActions(withTarget:) keeps other targets' actions")
  func removeForTarget() {
    let manager = UndoManager()
    let first = Counter(manager)
    let second = Counter(manager)
    first.set(1)
    manager.endEvent()
    second.set(1)
    manager.endEvent()
    manager.removeAllActions(withTarget: second)
    manager.undo()
    #expect(first.value == 0 && second.value == 1)
    #expect(!manager.canUndo)
  }

  @Test("observers hear groups close and undos and redos happen")
  func events() {
    let manager = UndoManager()
    var events: [UndoManager.Event] = []
    let observation = manager.observe { events.append($0) }
    let counter = Counter(manager)
    counter.set(1)
    manager.endEvent()
    manager.undo()
    manager.redo()
    #expect(events.contains(.didCloseGroup(isDiscardable: false)))
    #expect(events.contains(.didUndo) && events.contains(.didRedo))
    #expect(events.firstIndex(of: .willUndo)! < events.firstIndex(of: .didUndo)!)
    observation.cancel()
    counter.set(2)
    manager.endEvent()
    let count = events.count
    manager.undo()
    #expect(events.count == count)
  }
}
