import Foundation
import Testing

@testable import Quire

@Suite("Saving packages")
struct FileWrapperSaveTests {
  @Test("an in-place save writes only the changed member and leaves no bookkeeping")
  func incrementalSaveWritesOnlyChanges() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    try Disk.write("png", to: package.appendingPathComponent("image.png"))
    let untouched =
      try FileManager.default.attributesOfItem(
        atPath: package.appendingPathComponent("image.png").path)[.systemFileNumber] as? Int

    let wrapper = try FileWrapper(url: package)
    let old = try #require(wrapper.fileWrappers?["text.txt"])
    wrapper.removeFileWrapper(old)
    try wrapper.addRegularFile(withContents: Data("bonjour".utf8), preferredFilename: "text.txt")
    try wrapper.write(to: package, originalContentsURL: package)

    #expect(try Disk.tree(package) == ["image.png", "text.txt"])
    #expect(try Disk.read(package.appendingPathComponent("text.txt")) == "bonjour")
    let inode =
      try FileManager.default.attributesOfItem(
        atPath: package.appendingPathComponent("image.png").path)[.systemFileNumber] as? Int
    #expect(inode == untouched)
  }

  @Test("a multi-member save adds, replaces, removes and nests, then reads back equal")
  func multiMemberSave() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Album.album")
    for index in 0..<5 {
      try Disk.write("image \(index)", to: package.appendingPathComponent("images/\(index).jpg"))
    }
    try Disk.write("old", to: package.appendingPathComponent("notes.txt"))

    let wrapper = try FileWrapper(url: package)
    let images = try #require(wrapper.fileWrappers?["images"])
    images.removeFileWrapper(try #require(images.fileWrappers?["2.jpg"]))
    try images.addRegularFile(withContents: Data("new".utf8), preferredFilename: "5.jpg")
    wrapper.removeFileWrapper(try #require(wrapper.fileWrappers?["notes.txt"]))
    let sub = FileWrapper(directoryWithFileWrappers: [
      "a.txt": FileWrapper(regularFileWithContents: Data("a".utf8))
    ])
    sub.preferredFilename = "extra"
    try wrapper.addFileWrapper(sub)
    try wrapper.write(to: package)

    #expect(
      try Disk.tree(package) == [
        "extra/", "extra/a.txt", "images/", "images/0.jpg", "images/1.jpg", "images/3.jpg",
        "images/4.jpg", "images/5.jpg",
      ])
    let reread = try FileWrapper(url: package)
    #expect(reread.matchesContents(of: wrapper))
  }
}
