import Foundation
import Synchronization
import Testing

@testable import Quire
@testable import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// Runs the test helper to completion (for one coordinated write or move by another process),
/// without holding the caller's actor meanwhile.
func runHelper(_ arguments: [String]) async throws {
  let result = try await Executables.runDetached("quire-test-helper", arguments)
  #expect(result.status == 0, "\(arguments): \(result.stderr)")
}

@Suite("Documents as file presenters", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct DocumentPresenterTests {
  /// `notes.txt` in `folder`, holding "first", open as a text document that never autosaves.
  static func openNotes(in folder: TemporaryDirectory) async throws -> (URL, TextDocument) {
    let file = folder.file("notes.txt")
    try Disk.write("first", to: file)
    let document = TextDocument(fileURL: file, clock: ManualClock())
    try await document.open()
    return (file, document)
  }

  @Test("a document without unsaved changes reloads when another process writes it")
  func reloads() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("first", to: file)
    let document = TextDocument(fileURL: file)
    try await document.open()
    defer { Task { try? await document.close() } }
    let events = document.events()
    try await runHelper(["coord-write", file.path, "from elsewhere"])
    #expect(await waitForEvent(events) { if case .loaded = $0 { true } else { false } } != nil)
    #expect(document.text == "from elsewhere")
    #expect(!document.hasUnsavedChanges)
  }

  @Test("an uncoordinated cp over the file reloads the document")
  func reloadsAfterCopy() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    let other = folder.file("other.txt")
    try Disk.write("first", to: file)
    try Disk.write("copied in", to: other)
    let document = TextDocument(fileURL: file)
    try await document.open()
    defer { Task { try? await document.close() } }
    // The folder watch starts in the background: copy until the document hears of it. Each
    // attempt listens on a fresh event stream (a stream whose wait timed out has ended).
    let reloaded = try await withDeadline(seconds: 30) { () async throws -> Bool in
      while !Task.isCancelled {
        let events = await document.events()
        let copy = try await Executables.runCommandDetached(
          URL(fileURLWithPath: "/bin/cp"), [other.path, file.path])
        #expect(copy.status == 0)
        let event = await waitForEvent(events, seconds: 2) {
          if case .loaded = $0 { true } else { false }
        }
        if event != nil { return true }
      }
      return false
    }
    #expect(reloaded == true)
    #expect(document.text == "copied in")
  }

  @Test("a change on disk while edits are unsaved keeps both and puts the document in conflict")
  func conflictKeepsBoth() async throws {
    let folder = try TemporaryDirectory()
    let (file, document) = try await Self.openNotes(in: folder)
    defer { Task { try? await document.close() } }
    let events = document.events()
    document.setText("mine")
    document.undoManager.endEvent()
    #expect(document.hasUnsavedChanges)
    // The writer asks this document to save first (a coordinated write with merging would);
    // a plain coordinated write replaces the file, so the document must keep both.
    try await runHelper(["coord-write", file.path, "theirs"])
    let event = await waitForEvent(events) { if case .conflict = $0 { true } else { false } }
    guard case .conflict(let otherVersion)? = event else {
      Issue.record("no conflict reported")
      return
    }
    #expect(document.documentState.contains(.inConflict))
    #expect(document.text == "mine", "the open edits are not discarded")
    #expect(try Disk.read(otherVersion) == "theirs", "the other version is kept")
    try await document.resolveConflict(.keepBoth)
    #expect(!document.documentState.contains(.inConflict))
    try await document.save(to: file, for: .forOverwriting)
    #expect(try Disk.read(file) == "mine")
    #expect(try Disk.read(folder.file("notes (conflicted copy).txt")) == "theirs")
  }

  @Test(
    "a writer that truncated the file and keeps it open is waited for: only what it wrote is kept aside"
  )
  func waitsForAnOpenWriter() async throws {
    let folder = try TemporaryDirectory()
    let (file, document) = try await Self.openNotes(in: folder)
    defer { Task { try? await document.close() } }
    let events = document.events()
    document.setText("mine")
    document.undoManager.endEvent()
    // cp's first step: the file truncated, and still open for writing.
    let fd = open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC)
    #expect(fd >= 0)
    let first = await waitForEvent(events) {
      switch $0 {
      case .otherWriterOpen, .conflict: true
      default: false
      }
    }
    guard case .otherWriterOpen? = first else {
      Issue.record("the half-written file was judged: \(String(describing: first))")
      close(fd)
      return
    }
    // Its write and its close: the version is kept aside now, whole.
    _ = "theirs".withCString { write(fd, $0, 6) }
    close(fd)
    let event = await waitForEvent(events) { if case .conflict = $0 { true } else { false } }
    guard case .conflict(let otherVersion)? = event else {
      Issue.record("no conflict after the writer closed")
      return
    }
    #expect(try Disk.read(otherVersion) == "theirs")
    #expect(document.otherVersionURLs.count == 1, "no empty version kept aside")
    #expect(document.text == "mine")
  }

  @Test("a writer that finishes while its change is judged is kept aside once, whole")
  func writerFinishingMidJudgement() async throws {
    let folder = try TemporaryDirectory()
    let (file, document) = try await Self.openNotes(in: folder)
    defer { Task { try? await document.close() } }
    // Only this test's calls judge the file: the kernel's events would race them.
    FileCoordinator.removeFilePresenter(document)
    document.setText("mine")
    document.undoManager.endEvent()
    // cp's first step, the truncation, is seen; its write and close come exactly between the
    // document's first look at the file and its check for writers (that check's open).
    let writer = Mutex<Int32?>(open(file.path, O_WRONLY | O_TRUNC | O_CLOEXEC))
    let finish = FaultHook { call in
      if call == "open",
        let fd = writer.withLock({ fd in
          defer { fd = nil }
          return fd
        })
      {
        _ = "theirs".withCString { write(fd, $0, 6) }
        close(fd)
      }
      return nil
    }
    await Sys.$faults.withValue(finish) { await document.presentedItemDidChange() }
    #expect(writer.withLock { $0 } == nil, "the writer was not finished mid-judgement")
    await document.presentedItemDidChange()  // the writer's close, heard
    #expect(document.otherVersionURLs.count == 1, "its close kept a second version")
    #expect(try document.otherVersionURLs.map { try Disk.read($0) } == ["theirs"])
    #expect(document.text == "mine")
  }

  @Test("a document follows a move made by another process")
  func followsMove() async throws {
    let folder = try TemporaryDirectory()
    let old = folder.file("Old.txt")
    let new = folder.file("New.txt")
    try Disk.write("text", to: old)
    let document = TextDocument(fileURL: old)
    try await document.open()
    defer { Task { try? await document.close() } }
    let events = document.events()
    try await runHelper(["coord-move", old.path, new.path])
    #expect(await waitForEvent(events) { if case .moved = $0 { true } else { false } } != nil)
    #expect(document.fileURL.path == new.path)
    document.setText("edited after the move")
    try await document.save(to: document.fileURL, for: .forOverwriting)
    #expect(try Disk.read(new) == "edited after the move")
    #expect(!FileManager.default.fileExists(atPath: old.path))
  }

  @Test("deleting the document elsewhere closes it and keeps unsaved edits recoverable")
  func deletionKeepsEdits() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("Doomed.txt")
    try Disk.write("saved", to: file)
    let document = TextDocument(fileURL: file, clock: ManualClock())
    try await document.open()
    let events = document.events()
    document.setText("unsaved words")
    document.undoManager.endEvent()
    try await FileCoordinator().coordinate(with: [
      .writingIntent(with: file, options: .forDeleting)
    ]) { urls in
      try FileManager.default.removeItem(at: urls[0])
    }
    let event = await waitForEvent(events) { if case .deleted = $0 { true } else { false } }
    guard case .deleted(let recovered?)? = event else {
      Issue.record("no deletion with a recovered copy: \(String(describing: event))")
      return
    }
    defer { try? FileManager.default.removeItem(at: recovered) }
    #expect(try Disk.read(recovered) == "unsaved words")
    #expect(document.documentState.contains(.closed))
  }
}
