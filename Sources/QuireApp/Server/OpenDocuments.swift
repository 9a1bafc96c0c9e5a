import Foundation
import Quire

/// The documents open in the app's editors, each under a handle the page uses (so a rename or
/// move of the file does not lose it), with what the editor shows: saved, edited, saving, a save
/// error, or a conflict with a version changed on disk.
@MainActor
final class OpenDocuments {
  private struct Entry {
    let document: Document
    var saving = false
    var error: String?
    var version = 0
    var watcher: Task<Void, Never>?
  }

  private var entries: [String: Entry] = [:]
  private let notify: @Sendable (String) -> Void
  private let autosaveDelay: Duration

  /// `notify` hears the handle of a document whose state changed.
  init(autosaveDelay: Duration, notify: @escaping @Sendable (String) -> Void) {
    self.autosaveDelay = autosaveDelay
    self.notify = notify
  }

  /// Opens the document at `url` (or finds it open already) and returns its handle.
  func open(_ url: URL) async throws -> String {
    if let (handle, _) = entries.first(where: { $0.value.document.fileURL == url }) {
      return handle
    }
    let document = try SampleDocuments.document(at: url)
    document.autosaveDelay = autosaveDelay
    try await document.open()
    let handle = UUID().uuidString.lowercased()
    var entry = Entry(document: document)
    let events = document.events()
    entry.watcher = Task { [weak self] in
      for await event in events { self?.note(event, handle: handle) }
    }
    entries[handle] = entry
    return handle
  }

  /// The open document under `handle`.
  func document(_ handle: String) throws -> Document {
    guard let entry = entries[handle] else { throw Self.notOpen() }
    return entry.document
  }

  /// Closes the document under `handle`, saving its edits first.
  func close(_ handle: String) async throws {
    guard let entry = entries.removeValue(forKey: handle) else { return }
    entry.watcher?.cancel()
    try await entry.document.close()
  }

  /// Closes every document (saving edits), as the app stops.
  func closeAll() async {
    for handle in entries.keys { try? await close(handle) }
  }

  /// Marks a change made by the page (the image changed: its address must change too).
  func touch(_ handle: String) {
    entries[handle]?.version += 1
  }

  /// What the editor shows.
  func state(_ handle: String, library: LibraryFolder) throws -> EditorState {
    guard let entry = entries[handle] else { throw Self.notOpen() }
    return EditorState(
      handle: handle, document: entry.document, saving: entry.saving, error: entry.error,
      version: entry.version, library: library)
  }

  private static func notOpen() -> QuireError {
    QuireError(.notFound, "This document is no longer open in the app. Go back and open it again.")
  }

  private func note(_ event: DocumentEvent, handle: String) {
    guard entries[handle] != nil else { return }
    switch event {
    case .saving: entries[handle]?.saving = true
    case .saved:
      entries[handle]?.saving = false
      entries[handle]?.error = nil
    case .saveFailed(let error):
      entries[handle]?.saving = false
      entries[handle]?.error = error.message
    case .loaded: entries[handle]?.version += 1
    default: break
    }
    notify(handle)
  }
}
