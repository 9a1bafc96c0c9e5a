import Foundation
import Testing

@testable import Quire
@testable import QuireApp

@Suite("Renaming, moving, duplicating, the Trash and desktop registration")
struct DocumentFilesTests {
  @Test("rename and move never replace anything: a taken name gets the first free variant")
  func renameAndMove() throws {
    let folder = try TemporaryDirectory()
    try Disk.write("a", to: folder.file("A.txt"))
    try Disk.write("b", to: folder.file("B.txt"))
    try Disk.write("inside", to: folder.file("Sub/A.txt"))
    let identity = try DocumentIdentity.identity(of: folder.file("A.txt"), creating: true)
    let renamed = try DocumentFiles.rename(folder.file("A.txt"), to: "B.txt")
    #expect(renamed.lastPathComponent == "B 2.txt")
    #expect(try Disk.read(folder.file("B.txt")) == "b")
    #expect(try DocumentIdentity.identity(of: renamed, creating: false) == identity)
    let moved = try DocumentFiles.move(renamed, into: folder.file("Sub"))
    #expect(moved.path == folder.file("Sub/B 2.txt").path)
    #expect(try Disk.read(folder.file("Sub/A.txt")) == "inside")
    #expect(throws: QuireError.self) { try DocumentFiles.rename(moved, to: "../escape.txt") }
    #expect(throws: QuireError.self) { try DocumentFiles.rename(moved, to: "") }
  }

  @Test("a duplicate is a copy beside the original with an identity of its own")
  func duplicate() throws {
    let folder = try TemporaryDirectory()
    try Disk.write("text", to: folder.file("Doc.mydoc/text.txt"))
    try Disk.write("image", to: folder.file("Doc.mydoc/image.png"))
    let original = try DocumentIdentity.identity(of: folder.file("Doc.mydoc"), creating: true)
    let copy = try DocumentFiles.duplicate(folder.file("Doc.mydoc"))
    #expect(copy.lastPathComponent == "Doc copy.mydoc")
    #expect(try Disk.read(copy.appendingPathComponent("text.txt")) == "text")
    #expect(try DocumentIdentity.identity(of: copy, creating: true) != original)
    #expect(
      try DocumentFiles.duplicate(folder.file("Doc.mydoc")).lastPathComponent
        == "Doc copy 2.mydoc")
    #expect(try Disk.tree(folder.url).filter { $0.hasPrefix(".") }.isEmpty, "no scratch left")
  }

  @Test("a copy into another folder keeps its name, and every document in it gets a new identity")
  func copyInto() throws {
    let folder = try TemporaryDirectory()
    try Disk.write("note", to: folder.file("Trip/Note.txt"))
    try Disk.write("text", to: folder.file("Trip/Doc.mydoc/text.txt"))
    try Disk.write("taken", to: folder.file("Into/Note.txt"))
    let note = try DocumentIdentity.identity(of: folder.file("Trip/Note.txt"), creating: true)
    let doc = try DocumentIdentity.identity(of: folder.file("Trip/Doc.mydoc"), creating: true)
    let copied = try DocumentFiles.copy(folder.file("Trip/Note.txt"), into: folder.file("Into"))
    #expect(copied.lastPathComponent == "Note 2.txt")
    #expect(try Disk.read(copied) == "note")
    #expect(try Disk.read(folder.file("Into/Note.txt")) == "taken", "nothing replaced")
    #expect(try DocumentIdentity.identity(of: copied, creating: true) != note)
    let tree = try DocumentFiles.copy(folder.file("Trip"), into: folder.file("Into"))
    #expect(tree.lastPathComponent == "Trip")
    #expect(try Disk.read(tree.appendingPathComponent("Doc.mydoc/text.txt")) == "text")
    for inside in ["Note.txt", "Doc.mydoc"] {  // no identity of their own yet: not the originals'
      let identity = try DocumentIdentity.identity(
        of: tree.appendingPathComponent(inside), creating: false)
      #expect(identity.hasPrefix("dev"), "\(inside) has \(identity)")
    }
    #expect(
      try DocumentIdentity.identity(of: folder.file("Trip/Doc.mydoc"), creating: false) == doc)
    #expect(throws: QuireError.self) {
      try DocumentFiles.copy(folder.file("Missing.txt"), into: folder.file("Into"))
    }
    for inside in ["Trip", "Trip/Doc.mydoc"] {  // a folder into itself, or into what it holds
      #expect { try DocumentFiles.copy(folder.file("Trip"), into: folder.file(inside)) } throws: {
        ($0 as? QuireError)?.code == .invalidName
      }
    }
    #expect(try Disk.tree(folder.url).filter { $0.contains("/.") || $0.hasPrefix(".") }.isEmpty)
  }

  @Test("the Trash keeps a freedesktop record, never overwrites, and restores in place")
  func trash() throws {
    let folder = try TemporaryDirectory()
    let trash = Trash(folder: try TemporaryDirectory().url)
    try Disk.write("one", to: folder.file("Note.txt"))
    let first = try trash.trash(folder.file("Note.txt"))
    try Disk.write("two", to: folder.file("Note.txt"))
    let second = try trash.trash(folder.file("Note.txt"))
    #expect(first.lastPathComponent == "Note.txt")
    #expect(second.lastPathComponent == "Note.2.txt")
    let record = try Disk.read(trash.folder.appendingPathComponent("info/Note.txt.trashinfo"))
    #expect(record.hasPrefix("[Trash Info]\nPath=\(folder.file("Note.txt").path)\nDeletionDate="))
    #expect(
      Set(trash.items(from: folder.url).map(\.trashed.lastPathComponent)) == [
        "Note.txt", "Note.2.txt",
      ])
    #expect(!FileManager.default.fileExists(atPath: folder.file("Note.txt").path))
    let restored = try trash.restore(second)
    #expect(restored.path == folder.file("Note.txt").path)
    #expect(try Disk.read(restored) == "two")
    let again = try trash.restore(first)
    #expect(again.lastPathComponent == "Note 2.txt", "a restore never replaces")
    #expect(trash.items(from: folder.url).isEmpty)
    #expect(throws: QuireError.self) { try trash.restore(first) }
  }

  @Test("desktop registration: MIME globs, packages as directories, an entry that opens files")
  func desktop() throws {
    let home = try TemporaryDirectory()
    let integration = DesktopIntegration(
      name: "quire-test", displayName: "Quire", exec: "quire open %f",
      declarations: SampleTypes.declarations, dataHome: home.url)
    let written = try integration.install()
    #expect(written.map(\.lastPathComponent) == ["quire-test.xml", "quire-test.desktop"])
    let mime = try Disk.read(integration.mimePackageURL)
    #expect(mime.contains("<mime-type type=\"application/x-mydoc\">"))
    #expect(mime.contains("<glob pattern=\"*.mydoc\"/>"))
    #expect(mime.contains("<sub-class-of type=\"inode/directory\"/>"))
    let entry = try Disk.read(integration.desktopEntryURL)
    #expect(entry.contains("Exec=quire open %f\n"))
    #expect(entry.contains("MimeType=application/x-mydoc;text/plain;application/x-quire-album;"))
    #expect(integration.uninstall().count == 2)
    #expect(!FileManager.default.fileExists(atPath: integration.desktopEntryURL.path))
  }
}
