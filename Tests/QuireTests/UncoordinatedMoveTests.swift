import Foundation
import Testing

@testable import Quire
@testable import QuireApp

/// A document moved by a program that does not coordinate (`mv` in a shell, a file manager) is
/// followed, not closed: the monitor pairs the two halves of the move when any watch of the
/// process sees where it arrived.
@Suite("Documents follow uncoordinated moves", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct UncoordinatedMoveTests {
  @Test(
    "mv of an open document into another folder of a watched library keeps it open, edits and all")
  func followsMvBetweenFolders() async throws {
    let folder = try TemporaryDirectory()
    let library = folder.file("Library")
    let old = library.appendingPathComponent("Drafts/notes.txt")
    let new = library.appendingPathComponent("Final/notes.txt")
    try Disk.write("first", to: old)
    try FileManager.default.createDirectory(
      at: new.deletingLastPathComponent(), withIntermediateDirectories: true)
    // The app's query of the library: its watch sees where the document arrives.
    let query = DocumentQuery(scopes: [library], index: nil)
    let results = query.results()
    let watching = Task {
      for await _ in results {}
    }
    defer { watching.cancel() }

    // A manual clock: no autosave saves the edit before the move (one did under a loaded CI
    // run), so the edit is still unsaved when the move is heard.
    let document = TextDocument(fileURL: old, clock: ManualClock())
    try await document.open()
    defer { Task { try? await document.close() } }
    // Make sure the document's own watch runs: an outside write it reloads.
    var attempt = 0
    let listening = try await withDeadline(seconds: 30) { @MainActor () async throws -> Bool in
      while !Task.isCancelled {
        attempt += 1
        let events = document.events()
        try Data("outside \(attempt)".utf8).write(to: old)
        if await waitForEvent(events, seconds: 2, { if case .loaded = $0 { true } else { false } })
          != nil
        {
          return true
        }
      }
      return false
    }
    #expect(listening == true, "the document never heard its file")

    document.setText("unsaved edit")
    document.undoManager.endEvent()
    let events = document.events()
    let mv = try await Executables.runCommandDetached(
      URL(fileURLWithPath: "/bin/mv"), [old.path, new.path])
    #expect(mv.status == 0)
    let event = await waitForEvent(events) { event in
      switch event {
      case .moved, .deleted: true
      default: false
      }
    }
    guard case .moved(let to)? = event else {
      Issue.record("the move was taken as \(String(describing: event))")
      return
    }
    #expect(to.path == new.path)
    #expect(document.fileURL.path == new.path)
    #expect(!document.documentState.contains(.closed))
    #expect(document.hasUnsavedChanges && document.text == "unsaved edit")
    try await document.save(to: document.fileURL, for: .forOverwriting)
    #expect(try Disk.read(new) == "unsaved edit")
    #expect(!FileManager.default.fileExists(atPath: old.path))
  }

  @Test("a document whose file went where no watch looks is found by its identity in the index")
  func followsThroughTheIndex() async throws {
    let folder = try TemporaryDirectory()
    let old = folder.file("Library/notes.txt")
    let elsewhere = folder.file("Elsewhere")
    let new = elsewhere.appendingPathComponent("notes.txt")
    try Disk.write("first", to: old)
    try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
    let identity = try Bookmark(url: old).identity  // gives the document its identity
    let data = folder.file("data")
    let helper = try HelperProcess(
      ["follow", old.path], environment: ["XDG_DATA_HOME": data.path])
    #expect(try await onThread { helper.lines.nextLine() } == "ready")
    // The document's file gets a second name outside every watched folder, the index (the
    // helper's own, as a query of that folder in any process would write it) learns it, and
    // then the old name goes: to the document's watch, the file simply vanished.
    try FileManager.default.linkItem(at: old, to: new)
    let index = try DocumentIndex(url: data.appendingPathComponent("quire/index.sqlite"))
    let query = DocumentQuery(scopes: [elsewhere], index: index)
    for await results in query.results() where results.phase == .gathered { break }
    let indexed = try await withDeadline(seconds: 60) { () async throws -> Bool in
      while !index.paths(withIdentity: identity).contains(new.path) {
        try await Task.sleep(for: .milliseconds(20))  // polls the index (not a wait for an event)
      }
      return true
    }
    #expect(indexed == true, "the index never learned the new name")
    try FileManager.default.removeItem(at: old)
    #expect(try await onThread { helper.lines.nextLine() } == "moved \(new.path) edits kept")
  }
}
