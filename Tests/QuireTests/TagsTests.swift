import CQuireShims
import Foundation
import Testing

@testable import Quire
@testable import QuireApp

@Suite("Tags")
struct TagsTests {
  @Test("tags are read, added, removed and kept in the freedesktop attribute")
  func roundTrip() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("x", to: file)
    #expect(try Tags.tags(of: file).isEmpty)
    try Tags.setTags(["work", "draft", "work"], of: file)
    #expect(try Tags.tags(of: file) == ["work", "draft"])
    #expect(try Tags.update(file, adding: ["home"], removing: ["draft"]) == ["work", "home"])
    var raw = [UInt8](repeating: 0, count: 64)
    let count = cquire_getxattr(file.path, Tags.attributeName, &raw, 64)
    #expect(String(decoding: raw[0..<max(0, count)], as: UTF8.self) == "work,home")
    try Tags.setTags([], of: file)
    #expect(try Tags.tags(of: file).isEmpty)
    #expect { try Tags.setTags(["a,b"], of: file) } throws: {
      ($0 as? QuireError)?.code == .invalidName
    }
    #expect { try Tags.tags(of: folder.file("missing")) } throws: {
      ($0 as? QuireError)?.code == .notFound
    }
  }

  @Test("tags survive saves of flat documents and of packages, incremental and whole")
  @MainActor
  func surviveSaves() async throws {
    let folder = try TemporaryDirectory()
    let text = folder.file("notes.txt")
    try Disk.write("one", to: text)
    try Tags.setTags(["keep"], of: text)
    let document = TextDocument(fileURL: text)
    document.thumbnailCache = ThumbnailCache(folder: folder.file("cache"))
    try await document.open()
    document.setText("two")
    document.undoManager.endEvent()
    try await document.close()
    #expect(try Disk.read(text) == "two" && Tags.tags(of: text) == ["keep"])

    let package = folder.file("Doc.mydoc")
    try Disk.write("one", to: package.appendingPathComponent("text.txt"))
    try Tags.setTags(["keep"], of: package)
    let mydoc = MyDocDocument(fileURL: package)
    try await mydoc.open()
    mydoc.setText("two")
    mydoc.undoManager.endEvent()
    try await mydoc.close()
    #expect(try Tags.tags(of: package) == ["keep"])
    try FileWrapper(directoryWithFileWrappers: [:]).write(to: package)  // a whole write over it
    #expect(try Tags.tags(of: package) == ["keep"])
  }

  @Test("quire tag shows and changes tags")
  func cli() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("x", to: file)
    #expect(
      try await Executables.runDetached("quire", ["tag", file.path, "+work", "+home"]).stdout
        == "work, home\n")
    #expect(
      try await Executables.runDetached("quire", ["tag", file.path, "-work"]).stdout == "home\n")
    #expect(try await Executables.runDetached("quire", ["tag", file.path]).stdout == "home\n")
    let bad = try await Executables.runDetached("quire", ["tag", file.path, "plain"])
    #expect(bad.status != 0 && bad.stderr.hasPrefix("quire: "))
  }
}
