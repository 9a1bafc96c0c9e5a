import Foundation
import Quire

/// An open document as its editor shows it.
struct EditorState: Encodable {
  var handle: String
  var path: String
  var name: String
  var kind: String
  var text: String?
  var hasImage = false
  var images: [String] = []
  var version: Int
  /// `saved`, `edited`, `saving`, `error` or `conflict`.
  var status: String
  var error: String?
  var readOnly: Bool
  var canUndo: Bool
  var canRedo: Bool
  var undoName: String
  var redoName: String
  /// The devices whose concurrent edits lost to the current version and are kept as conflict
  /// versions (empty for a conflict with another program on this device).
  var conflictDevices: [String] = []
  /// The owners of WebDAV locks that held the document when this device saved it: those edits
  /// were kept aside as conflict versions ("locked by NAME"), not applied.
  var conflictLocks: [String] = []

  @MainActor
  init(
    handle: String, document: Document, saving: Bool, error: String?, version: Int,
    library: LibraryFolder
  ) {
    self.handle = handle
    path = library.relative(document.fileURL)
    name = document.localizedName
    self.version = version
    switch document {
    case let mydoc as MyDocDocument:
      kind = "mydoc"
      text = mydoc.text ?? ""
      hasImage = mydoc.image != nil
    case let plain as TextDocument:
      kind = "text"
      text = plain.text
    case let album as AlbumDocument:
      kind = "album"
      images = album.imageNames
    default:
      kind = "other"
    }
    let state = document.documentState
    self.error = error
    if state.contains(.inConflict) {
      status = "conflict"
    } else if error != nil || state.contains(.savingError) {
      status = "error"
      self.error = error ?? document.lastError?.message ?? "The last save failed."
    } else if saving {
      status = "saving"
    } else if document.hasUnsavedChanges {
      status = "edited"
    } else {
      status = "saved"
    }
    let conflicts = document.unresolvedConflictVersions
    conflictLocks = Array(Set(conflicts.compactMap(\.lockOwner))).sorted()
    conflictDevices = conflicts.filter { $0.lockOwner == nil }.map {
      $0.localizedNameOfSavingComputer ?? "another device"
    }
    readOnly = state.contains(.editingDisabled)
    canUndo = document.undoManager.canUndo
    canRedo = document.undoManager.canRedo
    undoName = document.undoManager.undoActionName
    redoName = document.undoManager.redoActionName
  }
}
