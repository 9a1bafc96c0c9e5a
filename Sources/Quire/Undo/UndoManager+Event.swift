extension UndoManager {
  /// What an undo manager tells its observers: Foundation's `NSUndoManager…` notifications.
  public enum Event: Hashable, Sendable {
    /// A group was opened.
    case didOpenGroup
    /// A group is about to close.
    case willCloseGroup
    /// A top-level group with actions was closed: a change was made (or, while undoing, undone).
    case didCloseGroup(isDiscardable: Bool)
    /// An undo is starting.
    case willUndo
    /// An undo finished.
    case didUndo
    /// A redo is starting.
    case willRedo
    /// A redo finished.
    case didRedo
  }

  /// Keeps an observation alive; the observation ends when this is released or cancelled.
  @MainActor
  public final class Observation {
    private weak var manager: UndoManager?
    private let id: Int

    init(manager: UndoManager, id: Int) {
      self.manager = manager
      self.id = id
    }

    /// Stops the observation.
    public func cancel() { manager?.observers[id] = nil }

    isolated deinit { cancel() }
  }

  /// Calls `handler` with every event until the returned observation is released.
  public func observe(_ handler: @escaping @MainActor (Event) -> Void) -> Observation {
    nextObserver += 1
    observers[nextObserver] = handler
    return Observation(manager: self, id: nextObserver)
  }

  func notify(_ event: Event) {
    for handler in observers.values { handler(event) }
  }
}
