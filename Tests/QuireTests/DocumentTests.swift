import Foundation
import Testing

@testable import Quire
@testable import QuireApp

/// Waits for the first event that `matches`, failing after `seconds`.
func waitForEvent(
  _ events: AsyncStream<DocumentEvent>, seconds: Double = 60,
  _ matches: @escaping @Sendable (DocumentEvent) -> Bool
) async -> DocumentEvent? {
  try? await withDeadline(seconds: seconds) { () async -> DocumentEvent? in
    for await event in events where matches(event) { return event }
    return nil
  } ?? nil
}

@Suite("Document lifecycle")
@MainActor
struct DocumentTests {
  static func seedPackage(_ folder: TemporaryDirectory, text: String?, image: Data?) throws -> URL {
    let package = folder.file("Seed.mydoc")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    if let text { try Data(text.utf8).write(to: package.appendingPathComponent("text.txt")) }
    if let image { try image.write(to: package.appendingPathComponent("image.png")) }
    return package
  }

  nonisolated static func png(width: Int, height: Int) throws -> Data {
    let pixels = (0..<(width * height)).flatMap { index -> [UInt8] in
      [UInt8(index % 256), UInt8((index / width) % 256), 128, 255]
    }
    return try RasterImage(width: width, height: height, pixels: pixels).pngData()
  }

  @Test("open, edit, save, close: the state flags and the file follow")
  func lifecycle() async throws {
    let folder = try TemporaryDirectory()
    let package = try Self.seedPackage(folder, text: "hello", image: nil)
    let document = MyDocDocument(fileURL: package)
    #expect(document.documentState == .closed)
    try await document.open()
    #expect(document.documentState == .normal)
    #expect(document.text == "hello" && document.image == nil)
    #expect(document.localizedName == "Seed" && document.fileModificationDate != nil)
    document.setText("bonjour")
    document.undoManager.endEvent()
    #expect(document.hasUnsavedChanges)
    try await document.close()
    #expect(document.documentState == .closed)
    #expect(try Disk.read(package.appendingPathComponent("text.txt")) == "bonjour")
  }

  @Test("undo back to the saved state makes the document clean; a new change after undo cannot")
  func changeCounting() async throws {
    let folder = try TemporaryDirectory()
    let document = MyDocDocument(fileURL: try Self.seedPackage(folder, text: "a", image: nil))
    try await document.open()
    document.setText("b")
    document.undoManager.endEvent()
    try await document.save(to: document.fileURL, for: .forOverwriting)
    #expect(!document.hasUnsavedChanges)
    document.undoManager.undo()
    #expect(document.hasUnsavedChanges && document.text == "a")
    document.undoManager.redo()
    #expect(!document.hasUnsavedChanges && document.text == "b")
    document.undoManager.undo()
    document.setText("c")
    document.undoManager.endEvent()
    document.undoManager.undo()
    #expect(
      document.text == "a" && document.hasUnsavedChanges, "the saved state is no longer reachable")
    try await document.close()
  }

  /// A text document whose writes wait for the test to let them go.
  final class GatedTextDocument: Document {
    var text = ""
    let gate = AsyncStream<Void>.makeStream()
    var writeStarted: AsyncStream<Void>.Continuation?
    var writes = 0

    override func contents(forType typeName: String) throws -> DocumentContents {
      .data(Data(text.utf8))
    }
    override func load(fromContents contents: DocumentContents, ofType typeName: String?) throws {
      if case .data(let data) = contents { text = String(decoding: data, as: UTF8.self) }
    }
    override func writeContents(
      _ contents: DocumentContents, to url: URL, for saveOperation: SaveOperation,
      originalContentsURL: URL?
    ) async throws {
      writes += 1
      writeStarted?.yield()
      writeStarted = nil
      for await _ in gate.stream { break }
      try await super.writeContents(
        contents, to: url, for: saveOperation, originalContentsURL: originalContentsURL)
    }
  }

  /// A gated document on `file` (holding "zero") with the unsaved edit "one", and `operation`
  /// started on it, once it has reached its write; nil (the failure recorded) if it never did.
  /// Waited for with a deadline, and the operation's own outcome kept: one that failed before
  /// its write (seen once under a loaded CI run) must fail the test, not hang it for good.
  static func gatedWrite(
    at file: URL, _ operation: @escaping @MainActor (GatedTextDocument) async throws -> Void
  ) async throws -> (GatedTextDocument, Task<Void, any Error>)? {
    try Disk.write("zero", to: file)
    let document = GatedTextDocument(fileURL: file, clock: ManualClock())
    try await document.open()
    document.text = "one"
    document.updateChangeCount(.done)
    let (started, starting) = AsyncStream<Void>.makeStream()
    document.writeStarted = starting
    let running = Task { try await operation(document) }
    let began = try await withDeadline(seconds: 120) { () async -> Bool in
      for await _ in started { return true }
      return false
    }
    guard began == true else {
      Issue.record("the write never started: \(await running.result)")
      return nil
    }
    return (document, running)
  }

  // Its document has a manual clock: with the real one, an autosave 3 s after the edit (a loaded
  // run gets there) took the gate's one write, and the test's own save then waited on it for good.
  @Test("a save marks saved only the changes it captured; edits during it stay unsaved")
  func changeTokens() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    guard
      let (document, saving) = try await Self.gatedWrite(
        at: file, { try await $0.save(to: file, for: .forOverwriting) })
    else { return }
    document.text = "two"
    document.updateChangeCount(.done)
    let events = document.events()
    document.gate.continuation.yield()
    #expect(await waitForEvent(events) { if case .saved = $0 { true } else { false } } != nil)
    try await saving.value
    #expect(try Disk.read(file) == "one")
    #expect(document.hasUnsavedChanges, "the edit made during the save is not marked saved")
    document.gate.continuation.yield()
    try await document.save(to: file, for: .forOverwriting)
    #expect(try Disk.read(file) == "two" && !document.hasUnsavedChanges)
  }

  @Test("an autosave that waited while close saved does not write the closed document again")
  func autosaveAfterClose() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    guard let (document, closing) = try await Self.gatedWrite(at: file, { try await $0.close() })
    else { return }
    // Asked while close's save holds the turn, as a woken autosave asks: it waits behind it.
    let autosaving = Task { await document.autosave() }
    document.gate.continuation.yield()
    document.gate.continuation.yield()  // lets a second write through, so a failure ends
    try await closing.value
    #expect(await autosaving.value, "nothing is left unsaved")
    #expect(document.writes == 1, "the closed document is written once, by close")
    #expect(try Disk.read(file) == "one" && document.documentState.contains(.closed))
  }

  @Test("the document saves itself after a quiet period, timed by the injected clock")
  func autosave() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("old", to: file)
    let clock = ManualClock()
    let document = TextDocument(fileURL: file, clock: clock)
    document.thumbnailCache = ThumbnailCache(folder: folder.file("cache"))
    try await document.open()
    let events = document.events()
    document.setText("first")
    document.undoManager.endEvent()
    await clock.waitForSleepers()
    clock.advance(by: .seconds(2))
    document.setText("second")  // a change during the quiet period starts it again
    document.undoManager.endEvent()
    clock.advance(by: .seconds(1))
    await clock.waitForSleepers()
    #expect(
      try Disk.read(file) == "old", "3 s after the first change but 1 s after the last: not yet")
    clock.advance(by: .seconds(3))
    let saved = await waitForEvent(events) {
      if case .saved(_, autosave: true) = $0 { true } else { false }
    }
    #expect(saved != nil)
    #expect(try Disk.read(file) == "second" && !document.hasUnsavedChanges)
    #expect(document.thumbnailCache.thumbnail(forDocumentAt: file) == TextPreview.svg("second"))
  }

  @Test("a failed save keeps the changes, reports the error, and the retry succeeds")
  func saveFailure() async throws {
    let folder = try TemporaryDirectory()
    let package = try Self.seedPackage(folder, text: "keep", image: nil)
    // A manual clock: an autosave (outside the failing calls) cannot save the edit meanwhile.
    let document = MyDocDocument(fileURL: package, clock: ManualClock())
    try await document.open()
    document.setText("edited")
    document.undoManager.endEvent()
    let failing = FaultHook { $0 == "fsync" ? ENOSPC : nil }
    await #expect(throws: QuireError.self) {
      try await Sys.$faults.withValue(failing) {
        try await document.save(to: package, for: .forOverwriting)
      }
    }
    #expect(document.documentState.contains(.savingError))
    #expect(document.lastError?.code == .noSpace)
    #expect(document.hasUnsavedChanges && document.text == "edited")
    #expect(try Disk.read(package.appendingPathComponent("text.txt")) == "keep")
    try await document.save(to: package, for: .forOverwriting)
    #expect(!document.documentState.contains(.savingError) && !document.hasUnsavedChanges)
    #expect(try Disk.read(package.appendingPathComponent("text.txt")) == "edited")
  }

  @Test("a failed open says why", arguments: ["missing", "file-for-package", "bad-utf8"])
  func openErrors(kind: String) async throws {
    let folder = try TemporaryDirectory()
    let url: URL
    let expected: QuireError.Code
    switch kind {
    case "missing":
      url = folder.file("Missing.mydoc")
      expected = .notFound
    case "file-for-package":
      url = folder.file("Flat.mydoc")
      try Disk.write("not a package", to: url)
      expected = .wrongKind
    default:
      url = try Self.seedPackage(folder, text: nil, image: nil)
      try Data([0xFF, 0xFE, 0xC3]).write(to: url.appendingPathComponent("text.txt"))
      expected = .corruptDocument
    }
    let document = MyDocDocument(fileURL: url)
    await #expect {
      try await document.open()
    } throws: { error in
      let error = error as? QuireError
      return error?.code == expected && error?.message.contains(url.lastPathComponent) == true
    }
    #expect(document.documentState == .closed)
  }

  @Test(
    "a read-only document opens with editing disabled",
    .enabled(if: getuid() != 0, "root can write anything"))
  func readOnly() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("locked.txt")
    try Disk.write("x", to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: file.path)
    let document = TextDocument(fileURL: file)
    try await document.open()
    #expect(document.documentState.contains(.editingDisabled))
  }

  @Test(
    "packages written by Quire hold exactly the seed's files, plus QuickLook/ for the thumbnail")
  func formatFidelity() async throws {
    let folder = try TemporaryDirectory()
    let image = try Self.png(width: 640, height: 480)
    for (text, picture) in [("hi", nil), (nil, image), ("both", image), (nil, nil)]
      as [(String?, Data?)]
    {
      let package = try Self.seedPackage(folder, text: text, image: picture)
      let document = MyDocDocument(fileURL: package)
      try await document.open()
      #expect(document.text == text && document.image == picture)
      document.setText((text ?? "") + "!")
      document.undoManager.endEvent()
      try await document.close()
      var expected = ["text.txt"]
      if picture != nil {
        expected = ["QuickLook/", "QuickLook/Thumbnail.png", "image.png"] + expected
      }
      if picture == nil { expected = ["QuickLook/", "QuickLook/Thumbnail.png"] + expected }
      #expect(try Disk.tree(package) == expected)
      #expect(
        try Data(contentsOf: package.appendingPathComponent("text.txt"))
          == Data(((text ?? "") + "!").utf8))
      if picture != nil {
        let thumbnail = try RasterImage(
          decoding: Data(contentsOf: package.appendingPathComponent("QuickLook/Thumbnail.png")))
        #expect(thumbnail.width == 256 && thumbnail.height == 192)
      }
      try FileManager.default.removeItem(at: package)
    }
  }

  @Test("JPEG images decode through libjpeg-turbo and make PNG thumbnails")
  func jpegThumbnail() async throws {
    let folder = try TemporaryDirectory()
    var smooth: [UInt8] = []
    for y in 0..<300 {
      for x in 0..<600 {
        let red = UInt8(x * 255 / 600)
        let green = UInt8(y * 255 / 300)
        smooth += [red, green, 128, 255]
      }
    }
    let source = RasterImage(width: 600, height: 300, pixels: smooth)
    let jpeg = try source.jpegData(quality: 90)
    #expect(jpeg.starts(with: [0xFF, 0xD8]))
    let decoded = try RasterImage(decoding: jpeg)
    #expect(decoded.width == 600 && decoded.height == 300)
    var total = 0
    for (a, b) in zip(decoded.pixels, source.pixels) { total += abs(Int(a) - Int(b)) }
    let error = total / decoded.pixels.count
    #expect(error < 8, "a quality-90 JPEG stays close to the original")
    let package = try Self.seedPackage(folder, text: nil, image: jpeg)
    let document = MyDocDocument(fileURL: package)
    try await document.open()
    let made = try document.thumbnail()
    let thumbnail = try RasterImage(decoding: try #require(made).data)
    #expect(thumbnail.width == 256 && thumbnail.height == 128)
    #expect(throws: QuireError.self) { try RasterImage(decoding: Data(jpeg.prefix(200))) }
    #expect(throws: QuireError.self) { try RasterImage(decoding: Data("not an image".utf8)) }
  }

  @Test("revert discards unsaved changes and undo history; saving reports progress")
  func revertAndProgress() async throws {
    let folder = try TemporaryDirectory()
    let package = try Self.seedPackage(folder, text: "on disk", image: nil)
    let document = MyDocDocument(fileURL: package)
    try await document.open()
    document.setText("unsaved")
    document.undoManager.endEvent()
    try await document.revert(toContentsOf: package)
    #expect(
      document.text == "on disk" && !document.hasUnsavedChanges && !document.undoManager.canUndo)
    let events = document.events()
    document.setText("saved")
    document.undoManager.endEvent()
    try await document.save(to: package, for: .forOverwriting)
    var sawProgress = false
    for await event in events {
      if case .stateChanged(let state) = event, state.contains(.progressAvailable) {
        sawProgress = true
      }
      if case .saved = event { break }
    }
    #expect(
      sawProgress && document.progress == nil
        && !document.documentState.contains(.progressAvailable))
  }

  @Test("an open document keeps its bytes when another program truncates its files in place")
  func truncatedBehindTheDocument() async throws {
    let folder = try TemporaryDirectory()
    let image = try Self.png(width: 300, height: 300)
    let package = try Self.seedPackage(folder, text: "text", image: image)
    let document = MyDocDocument(fileURL: package)
    try await document.open()
    // Truncating in place (as `> image.png` does) would make a mapping fault with SIGBUS.
    try FileHandle(forWritingTo: package.appendingPathComponent("image.png")).truncate(atOffset: 0)
    try FileHandle(forWritingTo: package.appendingPathComponent("text.txt")).truncate(atOffset: 0)
    #expect(document.image == image)
    #expect(document.text == "text")
    #expect(try document.thumbnail() != nil)
  }

  @Test("new documents are created elsewhere and moved in under a unique name")
  func creation() async throws {
    let folder = try TemporaryDirectory()
    let first = try await Document.createDocument(named: "Document.mydoc", in: folder.url) {
      MyDocDocument(fileURL: $0)
    }
    let second = try await Document.createDocument(named: "Document.mydoc", in: folder.url) {
      MyDocDocument(fileURL: $0)
    }
    #expect(
      first.lastPathComponent == "Document.mydoc" && second.lastPathComponent == "Document 2.mydoc")
    #expect(try Disk.tree(folder.url) == ["Document 2.mydoc/", "Document.mydoc/"])
  }
}

#if canImport(Glibc)
  import Glibc
#endif
