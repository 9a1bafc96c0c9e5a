/// Records changes so they can be undone and redone: Foundation's `UndoManager` (NSUndoManager),
/// which Linux lacks, with the same model.
///
/// Changes are registered with ``registerUndo(withTarget:handler:)`` inside undo groups; a group
/// is what one ``undo()`` reverses. With ``groupsByEvent`` (the default) a group opens by itself at
/// the first registration and closes at the end of the current turn of the main actor — one user
/// event — or when ``endEvent()`` is called by a host that has no run loop. Handlers registered
/// while undoing go to the redo stack, and the reverse; a new change clears the redo stack.
///
/// ```swift
/// func setText(_ newValue: String) {
///   let old = text
///   text = newValue
///   undoManager.registerUndo(withTarget: self) { $0.setText(old) }
///   undoManager.setActionName("Typing")
/// }
/// ```
@MainActor
public final class UndoManager {
  struct Action {
    weak var target: AnyObject?
    let perform: @MainActor (AnyObject) -> Void
  }

  struct Group {
    var actions: [Action] = []
    var name = ""
    var children: [Group] = []
    var isEmpty: Bool { actions.isEmpty && children.allSatisfy(\.isEmpty) }
  }

  var undoStack: [Group] = []
  var redoStack: [Group] = []
  /// Groups opened and not yet closed, innermost last.
  var openGroups: [Group] = []
  var automaticGroupIsOpen = false
  private var disabledCount = 0
  var observers: [Int: @MainActor (Event) -> Void] = [:]
  var nextObserver = 0

  /// Whether an undo or a redo is running now (registrations then go to the other stack).
  public internal(set) var isUndoing = false
  /// Whether a redo is running now.
  public internal(set) var isRedoing = false

  /// Whether groups open and close by themselves around each turn of the main actor. The
  /// default is true; with false, call ``beginUndoGrouping()`` and ``endUndoGrouping()``.
  public var groupsByEvent = true

  /// The most top-level groups kept for undo; older ones are dropped. 0 (the default) keeps all.
  public var levelsOfUndo = 0 {
    didSet { trim() }
  }

  /// Makes an empty undo manager.
  public init() {}

  /// Registers `handler` to undo a change to `target`. The undo manager does not keep `target`
  /// alive; if it is gone by the time of the undo, the action is skipped.
  public func registerUndo<Target: AnyObject>(
    withTarget target: Target, handler: @escaping @MainActor (Target) -> Void
  ) {
    guard isUndoRegistrationEnabled else { return }
    if openGroups.isEmpty {
      guard groupsByEvent else { return }  // Foundation drops registrations outside any group
      beginAutomaticGroup()
    }
    if !isUndoing && !isRedoing && !redoStack.isEmpty {
      redoStack.removeAll()
    }
    let action = Action(target: target) { object in handler(object as! Target) }
    openGroups[openGroups.count - 1].actions.append(action)
  }

  /// Names the current group (the open one, or the last closed one), for "Undo Typing".
  public func setActionName(_ name: String) {
    if !openGroups.isEmpty {
      openGroups[openGroups.count - 1].name = name
    } else if isUndoing, !redoStack.isEmpty {
      redoStack[redoStack.count - 1].name = name
    } else if !undoStack.isEmpty {
      undoStack[undoStack.count - 1].name = name
    }
  }

  /// The name of the group ``undo()`` would reverse, or "".
  public var undoActionName: String { openGroups.first.map(\.name) ?? undoStack.last?.name ?? "" }
  /// The name of the group ``redo()`` would reapply, or "".
  public var redoActionName: String { redoStack.last?.name ?? "" }

  /// Whether there is a change to undo.
  public var canUndo: Bool { !undoStack.isEmpty || openGroups.contains { !$0.isEmpty } }
  /// Whether there is an undone change to redo.
  public var canRedo: Bool { !redoStack.isEmpty }

  /// How many groups are open now.
  public var groupingLevel: Int { openGroups.count }

  /// Whether registrations are recorded (not inside ``disableUndoRegistration()``).
  public var isUndoRegistrationEnabled: Bool { disabledCount == 0 }

  /// Stops recording registrations until a matching ``enableUndoRegistration()``; calls nest.
  public func disableUndoRegistration() { disabledCount += 1 }

  /// Balances one ``disableUndoRegistration()``.
  public func enableUndoRegistration() { disabledCount = max(0, disabledCount - 1) }

  func trim() {
    guard levelsOfUndo > 0, undoStack.count > levelsOfUndo else { return }
    undoStack.removeFirst(undoStack.count - levelsOfUndo)
  }
}
