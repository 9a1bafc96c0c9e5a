import Foundation

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
  /// Another program moved or renamed the document; ``Document/fileURL`` is the new place.
  case moved(to: URL)
  /// Another program has the document's file open for writing: the document waits for it to
  /// close (its close is an event) before it reloads or keeps that version aside, so it never
  /// takes a half-written file, such as the empty one `cp` leaves between its truncation and
  /// its write.
  case otherWriterOpen
  /// Another program changed the file while the document had unsaved changes: both are kept,
  /// the other version as a copy at the given URL, and the document is `inConflict` until
  /// ``Document/resolveConflict(_:)``.
  case conflict(otherVersion: URL)
  /// Another device's concurrent edit of the synced document lost to the current version and
  /// was kept as this conflict version; the document is `inConflict` until it is resolved
  /// (``Document/resolveConflict(_:)``, or on any device).
  case conflictVersion(FileVersion)
  /// Another program deleted the document, which closed; unsaved changes were written to the
  /// given URL so they are not lost.
  case deleted(recoveredAt: URL?)
}
