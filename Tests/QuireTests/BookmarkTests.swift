import Foundation
import Testing

@testable import Quire
@testable import QuireApp

@Suite("Bookmarks")
struct BookmarkTests {
  @Test("a bookmark follows a rename, a move into a searched folder, and a safe-save")
  @MainActor
  func follows() async throws {
    let folder = try TemporaryDirectory()
    let original = folder.file("notes.txt")
    try Disk.write("one", to: original)
    let data = try Bookmark(url: original).data
    #expect(
      try Bookmark(data: data).resolve() == Bookmark.Resolution(url: original, isStale: false))

    // A safe-save gives the file a new inode; the identity travels with it.
    let document = TextDocument(fileURL: original)
    document.thumbnailCache = ThumbnailCache(folder: folder.file(".cache"))
    try await document.open()
    document.setText("two")
    document.undoManager.endEvent()
    try await document.close()
    #expect(try Bookmark(data: data).resolve().isStale == false)

    let renamed = folder.file("renamed.txt")
    try FileManager.default.moveItem(at: original, to: renamed)
    #expect(try Bookmark(data: data).resolve() == Bookmark.Resolution(url: renamed, isStale: true))

    let elsewhere = try TemporaryDirectory()
    let moved = elsewhere.file("deep/inside/renamed.txt")
    try FileManager.default.createDirectory(
      at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: renamed, to: moved)
    #expect { try Bookmark(data: data).resolve() } throws: {
      ($0 as? QuireError)?.code == .notFound
    }
    #expect(try Bookmark(data: data).resolve(searching: [elsewhere.url]).url == moved)

    // The old folder is searched only at its own level: a move into a subfolder needs a scope.
    let subfolder = folder.file("sub/renamed.txt")
    try FileManager.default.createDirectory(
      at: subfolder.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: moved, to: subfolder)
    #expect { try Bookmark(data: data).resolve() } throws: {
      ($0 as? QuireError)?.code == .notFound
    }
    #expect(try Bookmark(data: data).resolve(searching: [folder.url]).url == subfolder)
  }

  @Test("another file put in the document's place is not taken for it")
  func replacedByAnother() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("mine", to: file)
    let bookmark = try Bookmark(url: file)
    try FileManager.default.removeItem(at: file)
    try Disk.write("someone else's", to: file)
    #expect { try bookmark.resolve() } throws: { ($0 as? QuireError)?.code == .notFound }
    #expect { try Bookmark(data: Data("garbage".utf8)) } throws: {
      ($0 as? QuireError)?.code == .corruptDocument
    }
  }

  @Test("a bookmark made here resolves in another process after the package is renamed")
  func acrossProcesses() async throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Report.mydoc")
    try Disk.write("text", to: package.appendingPathComponent("text.txt"))
    let made = try await Executables.runDetached(
      "quire", ["bookmark", package.path, "--out", folder.file("report.bookmark").path])
    #expect(made.status == 0)
    try FileManager.default.moveItem(at: package, to: folder.file("Final Report.mydoc"))
    let resolved = try await Executables.runDetached(
      "quire", ["resolve", folder.file("report.bookmark").path])
    #expect(
      resolved.stdout == folder.file("Final Report.mydoc").path
        + " (stale: make the bookmark again)\n")
  }
}
