import Foundation
import Testing

@testable import Quire

@Suite("FileWrapper model")
struct FileWrapperModelTests {
  @Test("the three kinds report themselves")
  func kinds() {
    let file = FileWrapper(regularFileWithContents: Data("x".utf8))
    let folder = FileWrapper(directoryWithFileWrappers: [:])
    let link = FileWrapper(symbolicLinkWithDestinationURL: URL(fileURLWithPath: "/etc/hostname"))
    #expect(file.isRegularFile && !file.isDirectory && !file.isSymbolicLink)
    #expect(folder.isDirectory && !folder.isRegularFile)
    #expect(link.isSymbolicLink && link.symbolicLinkDestination == "/etc/hostname")
    #expect(link.symbolicLinkDestinationURL?.path == "/etc/hostname")
    #expect(file.regularFileContents == Data("x".utf8))
    #expect(folder.regularFileContents == nil)
    #expect(file.fileWrappers == nil)
  }

  @Test("children get their key as preferred filename, clashes get a unique name")
  func uniqueNames() throws {
    let image = FileWrapper(regularFileWithContents: Data())
    let folder = FileWrapper(directoryWithFileWrappers: ["image.png": image])
    #expect(image.preferredFilename == "image.png")
    #expect(
      try folder.addRegularFile(withContents: Data("2".utf8), preferredFilename: "image.png")
        == "image 2.png")
    #expect(
      try folder.addRegularFile(withContents: Data("3".utf8), preferredFilename: "image.png")
        == "image 3.png")
    #expect(
      try folder.addRegularFile(withContents: Data(), preferredFilename: "README") == "README")
    #expect(
      try folder.addRegularFile(withContents: Data(), preferredFilename: "README") == "README 2")
    #expect(
      try folder.addRegularFile(withContents: Data(), preferredFilename: ".hidden") == ".hidden")
    #expect(
      try folder.addRegularFile(withContents: Data(), preferredFilename: ".hidden") == ".hidden 2")
    #expect(folder.keyForFileWrapper(image) == "image.png")
    folder.removeFileWrapper(image)
    #expect(folder.keyForFileWrapper(image) == nil)
    #expect(folder.fileWrappers?["image.png"] == nil)
    #expect(try folder.addFileWrapper(image) == "image.png")
  }

  @Test(
    "invalid names and wrong kinds are typed errors",
    arguments: ["", ".", "..", "a/b", "nul\0byte", String(repeating: "n", count: 256)])
  func invalidNames(name: String) {
    let folder = FileWrapper(directoryWithFileWrappers: [:])
    #expect {
      try folder.addRegularFile(withContents: Data(), preferredFilename: name)
    } throws: { ($0 as? QuireError)?.code == .invalidName }
  }

  @Test("adding to a file, or adding a wrapper without a name, throws")
  func misuse() {
    let file = FileWrapper(regularFileWithContents: Data())
    #expect(throws: QuireError.self) {
      try file.addRegularFile(withContents: Data(), preferredFilename: "x")
    }
    let folder = FileWrapper(directoryWithFileWrappers: [:])
    #expect { try folder.addFileWrapper(FileWrapper(regularFileWithContents: Data())) } throws: {
      ($0 as? QuireError)?.code == .invalidName
    }
  }

  @Test("a written key that Linux cannot store fails the save with the name")
  func invalidKeyAtWrite() throws {
    let folder = try TemporaryDirectory()
    let wrapper = FileWrapper(directoryWithFileWrappers: [
      "../escape": FileWrapper(regularFileWithContents: Data())
    ])
    #expect { try wrapper.write(to: folder.file("Bad.mydoc")) } throws: {
      ($0 as? QuireError)?.code == .invalidName
        && ($0 as? QuireError)?.message.contains("../escape") == true
    }
    #expect(try Disk.tree(folder.url).isEmpty)
    #expect(
      !FileManager.default.fileExists(
        atPath: folder.url.deletingLastPathComponent().appendingPathComponent("escape").path))
  }

  @Test("matchesContents compares kinds, names and bytes")
  func matching() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    let wrapper = try FileWrapper(url: package)
    #expect(wrapper.matchesContents(of: package))
    try Disk.write("changed", to: package.appendingPathComponent("text.txt"))
    #expect(!wrapper.matchesContents(of: package))
    #expect(wrapper.needsToBeUpdated(fromPath: package))
    try wrapper.read(from: package)
    #expect(try wrapper.fileWrappers?["text.txt"]?.contents() == Data("changed".utf8))
    #expect(!wrapper.needsToBeUpdated(fromPath: package))
  }
}
