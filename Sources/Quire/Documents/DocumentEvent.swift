/// What a ``Document`` reports to observers through ``Document/events()``.
public enum DocumentEvent: Sendable {
  /// The state flags changed.
  case stateChanged(DocumentState)
  /// The document was read from disk (opened or reverted).
  case loaded
  /// The document has unsaved changes now, or no longer has (after a save or an undo back).
  case editedChanged(hasUnsavedChanges: Bool)
  /// A save started.
  case saving(Document.SaveOperation)
  /// A save finished; `autosave` tells whether the document saved itself.
  case saved(Document.SaveOperation, autosave: Bool)
  /// A save failed; the changes are kept in memory.
  case saveFailed(QuireError)
}
