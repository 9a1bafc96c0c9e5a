import Foundation
import Testing

@testable import Quire

@Suite("Recent documents")
struct RecentDocumentsTests {
  @Test("most recent first, without duplicates, capped, and persisted")
  func ordering() throws {
    let folder = try TemporaryDirectory()
    let store = folder.file(".state/recents.json")
    let recents = RecentDocuments(storeURL: store, capacity: 3)
    let files = try (0..<5).map { index -> URL in
      let url = folder.file("doc-\(index).txt")
      try Disk.write("\(index)", to: url)
      return url
    }
    for file in files[0..<4] { try recents.noteOpened(file) }
    try recents.noteOpened(files[2])  // again: moves to the front, not duplicated
    #expect(try recents.documents() == [files[2], files[3], files[1]])
    #expect(recents.lastOpenDocument() == files[2])
    // Another instance (another launch, another process) reads the same list.
    #expect(try RecentDocuments(storeURL: store).documents() == [files[2], files[3], files[1]])
    try recents.noteAllClosed()
    #expect(recents.lastOpenDocument() == nil)
    #expect(
      !(try String(contentsOf: store, encoding: .utf8)).contains(folder.path),
      "kept as bookmarks' data, not as paths to read")
  }

  @Test("renamed documents are followed; deleted ones are pruned from the store")
  func followsAndPrunes() throws {
    let folder = try TemporaryDirectory()
    let recents = RecentDocuments(storeURL: folder.file(".state/recents.json"))
    let kept = folder.file("kept.txt")
    let gone = folder.file("gone.txt")
    try Disk.write("k", to: kept)
    try Disk.write("g", to: gone)
    try recents.noteOpened(kept)
    try recents.noteOpened(gone)
    try FileManager.default.removeItem(at: gone)
    let renamed = folder.file("renamed.txt")
    try FileManager.default.moveItem(at: kept, to: renamed)
    #expect(try recents.documents() == [renamed])
    try Disk.write("g", to: gone)  // a new file with the old name is another document
    #expect(try recents.documents() == [renamed])
    try recents.remove(renamed)
    #expect(try recents.documents().isEmpty)
  }

  @Test("quire show records the document, and quire recent lists it")
  func cli() throws {
    let folder = try TemporaryDirectory()
    let environment = [
      "XDG_DATA_HOME": folder.file("data").path, "XDG_CACHE_HOME": folder.file("cache").path,
    ]
    try Disk.write("hello", to: folder.file("notes.txt"))
    #expect(
      try Executables.run(
        "quire", ["show", folder.file("notes.txt").path], environment: environment
      ).status == 0)
    try FileManager.default.moveItem(at: folder.file("notes.txt"), to: folder.file("moved.txt"))
    let listed = try Executables.run("quire", ["recent"], environment: environment)
    #expect(listed.stdout == folder.file("moved.txt").path + "\n")
  }
}
