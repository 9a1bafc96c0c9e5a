import Foundation
import Testing

@testable import Quire

@Suite("Reading packages")
struct FileWrapperReadingTests {
  @Test("reading a package reads names and attributes, not bytes")
  func lazyRead() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Album.album")
    try Disk.write("first", to: package.appendingPathComponent("one.jpg"))
    try Disk.write("second", to: package.appendingPathComponent("two.jpg"))
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: package.appendingPathComponent("one.jpg").path)
    let wrapper = try FileWrapper(url: package)
    let one = try #require(wrapper.fileWrappers?["one.jpg"])
    #expect(!one.hasLoadedContents)
    #expect(one.fileAttributes.size == 5)
    #expect(one.fileAttributes.posixPermissions == 0o600)
    #expect(one.filename == "one.jpg" && one.preferredFilename == "one.jpg")
    let date =
      try FileManager.default.attributesOfItem(
        atPath: package.appendingPathComponent("one.jpg").path)[.modificationDate] as? Date
    #expect(abs(one.fileAttributes.modificationDate!.timeIntervalSince(date!)) < 0.001)
    #expect(try one.contents() == Data("first".utf8))
    #expect(one.hasLoadedContents)
    one.discardContents()
    #expect(!one.hasLoadedContents)
    #expect(one.regularFileContents == Data("first".utf8))
  }

  @Test(
    "the immediate and withoutMapping options",
    arguments: [FileWrapper.ReadingOptions.immediate, [.immediate, .withoutMapping]])
  func immediate(options: FileWrapper.ReadingOptions) throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("text", to: package.appendingPathComponent("text.txt"))
    let wrapper = try FileWrapper(url: package, options: options)
    let text = try #require(wrapper.fileWrappers?["text.txt"])
    #expect(text.hasLoadedContents)
    try FileManager.default.removeItem(at: package)
    #expect(try text.contents() == Data("text".utf8))
  }

  @Test("a member deleted behind Quire's back is a notFound error naming it")
  func vanishedMember() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("text", to: package.appendingPathComponent("text.txt"))
    let wrapper = try FileWrapper(url: package)
    try FileManager.default.removeItem(at: package.appendingPathComponent("text.txt"))
    #expect { try wrapper.fileWrappers?["text.txt"]?.contents() } throws: { error in
      let error = error as? QuireError
      return error?.code == .notFound && error?.path?.hasSuffix("Doc.mydoc/text.txt") == true
    }
  }

  @Test("missing and unreadable items are typed errors")
  func readErrors() throws {
    let folder = try TemporaryDirectory()
    #expect { try FileWrapper(url: folder.file("missing.mydoc")) } throws: {
      ($0 as? QuireError)?.code == .notFound
        && ($0 as? QuireError)?.message.contains("missing.mydoc") == true
    }
    guard getuid() != 0 else { return }  // root reads everything; permission checks need a user
    let package = folder.file("Locked.mydoc")
    try Disk.write("x", to: package.appendingPathComponent("a.txt"))
    try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: package.path)
    #expect { try FileWrapper(url: package) } throws: {
      ($0 as? QuireError)?.code == .permissionDenied
    }
  }

  @Test("links, nested folders and empty folders are read as they are")
  func treeShapes() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("x", to: package.appendingPathComponent("a/b/c.txt"))
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: package.appendingPathComponent("link").path, withDestinationPath: "a/b/c.txt")
    let wrapper = try FileWrapper(url: package)
    #expect(wrapper.fileWrappers?["link"]?.symbolicLinkDestination == "a/b/c.txt")
    #expect(wrapper.fileWrappers?["empty"]?.fileWrappers?.isEmpty == true)
    #expect(
      wrapper.fileWrappers?["a"]?.fileWrappers?["b"]?.fileWrappers?["c.txt"]?.regularFileContents
        == Data("x".utf8))
  }
}

#if canImport(Glibc)
  import Glibc
#endif
