import Foundation
import Testing

@testable import Quire
@testable import QuireApp

@Suite("The browser's Undo and Redo, kept by the app")
@MainActor
struct BrowserUndoTests {
  let folder: TemporaryDirectory
  let library: LibraryFolder
  let undo: BrowserUndo

  init() throws {
    folder = try TemporaryDirectory()
    try Disk.write("one", to: folder.file("Library/One.txt"))
    try Disk.write("two", to: folder.file("Library/Two.txt"))
    try Disk.write("three", to: folder.file("Library/Three.txt"))
    try FileManager.default.createDirectory(
      at: folder.file("Library/Box"), withIntermediateDirectories: true)
    library = try LibraryFolder(folder.file("Library"))
    undo = BrowserUndo(library: library, trash: Trash(folder: folder.file("Trash")))
  }

  private func file(_ path: String) -> URL { folder.file("Library/" + path) }
  private func names(_ path: String = "") throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: file(path).path).sorted()
  }

  /// Moves `names` into Box as the page does: one request per item, all in `step`.
  private func moveIntoBox(_ names: [String], step: String) throws {
    for name in names {
      let moved = try DocumentFiles.move(file(name), into: file("Box"))
      undo.record(.move(moved, into: file("")), step: step, actionName: "Move")
    }
  }

  @Test("one Ctrl+Z takes back a whole operation of many requests, and Redo does it again")
  func wholeSteps() async throws {
    try moveIntoBox(["One.txt", "Two.txt", "Three.txt"], step: "page-1")
    let renamed = try DocumentFiles.rename(file("Box/One.txt"), to: "Uno.txt")
    undo.record(.rename(renamed, to: "One.txt"), step: "page-2", actionName: "Rename")
    #expect(undo.state == .init(paths: [], undo: "Rename", redo: ""))

    let first = try await undo.undo()
    #expect(first.paths == ["Box/One.txt"])
    #expect(try names("Box") == ["One.txt", "Three.txt", "Two.txt"])
    #expect(first.undo == "Move" && first.redo == "Rename")

    let second = try await undo.undo()
    #expect(Set(second.paths) == ["One.txt", "Two.txt", "Three.txt"])
    #expect(try names() == ["Box", "One.txt", "Three.txt", "Two.txt"])
    #expect(try names("Box") == [])
    #expect(second.undo == "" && second.redo == "Move")
    #expect(try await undo.undo().paths == [], "nothing left to undo does nothing")

    #expect(
      Set(try await undo.undo(redo: true).paths) == ["Box/One.txt", "Box/Two.txt", "Box/Three.txt"])
    #expect(try names("Box") == ["One.txt", "Three.txt", "Two.txt"])
    #expect(try await undo.undo(redo: true).paths == ["Box/Uno.txt"])
    #expect(try Disk.read(file("Box/Uno.txt")) == "one")

    // A new operation after an undo clears what was left to redo, as in Finder.
    _ = try await undo.undo()
    let trashed = try Trash(folder: folder.file("Trash")).trash(file("Box/Two.txt"))
    undo.record(
      .restore(trashedName: trashed.lastPathComponent), step: "page-3", actionName: "Move to Trash")
    #expect(undo.state == .init(paths: [], undo: "Move to Trash", redo: ""))
  }

  @Test("the Trash and copies: undo puts back or trashes, redo does it again, bytes intact")
  func trashAndCopy() async throws {
    let trash = Trash(folder: folder.file("Trash"))
    let trashed = try trash.trash(file("One.txt"))
    undo.record(
      .restore(trashedName: trashed.lastPathComponent), step: "a", actionName: "Move to Trash")
    let copy = try DocumentFiles.copy(file("Two.txt"), into: file("Box"))
    undo.record(.trash(copy), step: "b", actionName: "Copy")

    #expect(try await undo.undo().paths == ["Box/Two.txt"])
    #expect(try names("Box") == [])
    #expect(try Disk.read(file("Two.txt")) == "two", "the original stays")
    #expect(try await undo.undo().paths == ["One.txt"])
    #expect(try Disk.read(file("One.txt")) == "one")
    #expect(trash.items(from: library.root).map(\.original.lastPathComponent) == ["Two.txt"])

    #expect(try await undo.undo(redo: true).paths == ["One.txt"])
    #expect(try names() == ["Box", "Three.txt", "Two.txt"])
    #expect(try await undo.undo(redo: true).paths == ["Box/Two.txt"])
    #expect(try Disk.read(file("Box/Two.txt")) == "two")
    #expect(trash.items(from: library.root).map(\.original.lastPathComponent) == ["One.txt"])
  }

  @Test("an inverse that no longer applies fails with its path; the rest of the step is undone")
  func goneSince() async throws {
    try moveIntoBox(["One.txt", "Two.txt"], step: "page-1")
    try FileManager.default.removeItem(at: file("Box/One.txt"))  // deleted in a file manager
    await #expect {
      try await undo.undo()
    } throws: { error in
      let error = error as? QuireError
      return error?.code == .notFound && error?.message.contains("Box/One.txt") == true
    }
    #expect(try names() == ["Box", "Three.txt", "Two.txt"])
    #expect(undo.state == .init(paths: [], undo: "", redo: "Move"))
    #expect(try await undo.undo(redo: true).paths == ["Box/Two.txt"], "redo does what the undo did")
  }
}
