import CQuireShims
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

@Suite("Saving packages: shapes and options")
struct FileWrapperSaveShapeTests {
  @Test("a member that changes kind (file to folder and back) is replaced whole")
  func kindChanges() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("file", to: package.appendingPathComponent("thing"))
    try Disk.write("x", to: package.appendingPathComponent("other/inner.txt"))
    let wrapper = try FileWrapper(url: package)
    wrapper.removeFileWrapper(wrapper.fileWrappers!["thing"]!)
    let replacement = FileWrapper(directoryWithFileWrappers: [
      "inside.txt": FileWrapper(regularFileWithContents: Data("in".utf8))
    ])
    replacement.preferredFilename = "thing"
    try wrapper.addFileWrapper(replacement)
    wrapper.removeFileWrapper(wrapper.fileWrappers!["other"]!)
    try wrapper.addRegularFile(withContents: Data("now a file".utf8), preferredFilename: "other")
    try wrapper.write(to: package)
    #expect(try Disk.tree(package) == ["other", "thing/", "thing/inside.txt"])
    #expect(try Disk.read(package.appendingPathComponent("other")) == "now a file")
  }

  @Test("changing only attributes applies them in place")
  func attributesOnly() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("x", to: package.appendingPathComponent("a.txt"))
    let wrapper = try FileWrapper(url: package)
    let member = wrapper.fileWrappers!["a.txt"]!
    let date = Date(timeIntervalSince1970: 1_000_000_000)
    var attributes = member.fileAttributes
    attributes.posixPermissions = 0o640
    attributes.modificationDate = date
    member.fileAttributes = attributes
    try wrapper.write(to: package)
    let written = try FileManager.default.attributesOfItem(
      atPath: package.appendingPathComponent("a.txt").path)
    #expect((written[.posixPermissions] as? Int) == 0o640)
    #expect((written[.modificationDate] as? Date) == date)
  }

  @Test("Save As writes a whole copy; originalContentsURL hard-links unchanged members")
  func saveAs() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("image", to: package.appendingPathComponent("image.png"))
    try Disk.write("text", to: package.appendingPathComponent("text.txt"))
    let wrapper = try FileWrapper(url: package)
    let copy = folder.file("Copy.mydoc")
    try wrapper.write(to: copy, options: .withNameUpdating)
    #expect(try Disk.snapshot(copy) == Disk.snapshot(package))
    #expect(wrapper.filename == "Copy.mydoc")
    let inode = { (url: URL) in
      try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
    }
    #expect(
      try inode(copy.appendingPathComponent("image.png"))
        != inode(package.appendingPathComponent("image.png")))

    let fresh = try FileWrapper(url: package)
    let linked = folder.file("Linked.mydoc")
    try fresh.write(to: linked, originalContentsURL: package)
    #expect(
      try inode(linked.appendingPathComponent("image.png"))
        == inode(package.appendingPathComponent("image.png")))
    // The wrapper now lives at the new place: the next save there is incremental.
    fresh.removeFileWrapper(fresh.fileWrappers!["text.txt"]!)
    try fresh.write(to: linked)
    #expect(try Disk.tree(linked) == ["image.png"])
    #expect(try Disk.tree(package) == ["image.png", "text.txt"])
  }

  @Test("writing over an existing document swaps it atomically and leaves nothing beside it")
  func overwriteExisting() throws {
    let folder = try TemporaryDirectory()
    let target = folder.file("Doc.mydoc")
    try Disk.write("old", to: target.appendingPathComponent("old.txt"))
    let wrapper = FileWrapper(directoryWithFileWrappers: [
      "new.txt": FileWrapper(regularFileWithContents: Data("new".utf8))
    ])
    try wrapper.write(to: target, options: .atomic)
    #expect(try Disk.tree(target) == ["new.txt"])
    #expect(try Disk.tree(folder.url) == ["Doc.mydoc/", "Doc.mydoc/new.txt"])
  }

  @Test("writing a whole package over an existing one keeps the old folder's extended attributes")
  func wholeWriteKeepsAttributes() throws {
    let folder = try TemporaryDirectory()
    let target = folder.file("Doc.mydoc")
    try Disk.write("old", to: target.appendingPathComponent("old.txt"))
    guard cquire_lsetxattr(target.path, "user.xdg.tags", "work", 4) == 0 else { return }  // no xattrs here
    let wrapper = FileWrapper(directoryWithFileWrappers: [
      "new.txt": FileWrapper(regularFileWithContents: Data("new".utf8))
    ])
    try wrapper.write(to: target)
    #expect(try Disk.tree(target) == ["new.txt"])
    var value = [UInt8](repeating: 0, count: 16)
    let count = cquire_lgetxattr(target.path, "user.xdg.tags", &value, 16)
    #expect(count == 4 && String(decoding: value[0..<4], as: UTF8.self) == "work")
  }

  @Test("leftovers of whole writes and imports by processes that died are removed; live ones stay")
  func staleTemporaries() throws {
    let folder = try TemporaryDirectory()
    // A process that cannot exist: one past the kernel's largest process ID. (The ID of a
    // process that had just exited was reused by another one before the cleanup looked, in a CI
    // run on a machine whose IDs wrap at 32 768; the leftover then rightly stayed.)
    let maximum = try String(contentsOfFile: "/proc/sys/kernel/pid_max", encoding: .utf8)
    let dead = try #require(pid_t(maximum.trimmingCharacters(in: .whitespacesAndNewlines))) + 1
    let leftovers = [
      ".Doc.mydoc.quire-new-\(dead)-abc", ".Doc.mydoc.quire-new-1-live",
      ".Doc.mydoc.quire-new-\(getpid())-mine",
      ".quire-import-\(dead)-xyz", ".quire-import-1-live",
    ]
    for name in leftovers {
      try Disk.write("partial", to: folder.file(name).appendingPathComponent("member"))
    }
    try FileWrapper(directoryWithFileWrappers: [
      "a.txt": FileWrapper(regularFileWithContents: Data("a".utf8))
    ])
    .write(to: folder.file("Doc.mydoc"))
    try PackageArchive.export(folder.file("Doc.mydoc"), to: folder.file("Doc.zip"))
    let destination = folder.url
    _ = try PackageArchive.importArchive(folder.file("Doc.zip"), into: destination)
    let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.path))
    #expect(
      !names.contains(".Doc.mydoc.quire-new-\(dead)-abc")
        && !names.contains(".quire-import-\(dead)-xyz"))
    #expect(
      names.isSuperset(of: [
        ".Doc.mydoc.quire-new-1-live", ".Doc.mydoc.quire-new-\(getpid())-mine",
        ".quire-import-1-live",
      ]))
  }

  @Test("a flat document keeps its permissions and extended attributes across a safe-save")
  func flatSafeSave() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("old", to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    let tagged = cquire_lsetxattr(file.path, "user.xdg.tags", "work", 4) == 0
    let before =
      try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
    try FileWrapper(regularFileWithContents: Data("new".utf8)).write(to: file)
    #expect(try Disk.read(file) == "new")
    let after = try FileManager.default.attributesOfItem(atPath: file.path)
    #expect((after[.posixPermissions] as? Int) == 0o600)
    #expect((after[.systemFileNumber] as? Int) != before, "a safe-save replaces the inode")
    if tagged {
      var value = [UInt8](repeating: 0, count: 16)
      let count = cquire_lgetxattr(file.path, "user.xdg.tags", &value, 16)
      #expect(count == 4 && String(decoding: value[0..<4], as: UTF8.self) == "work")
    }
    #expect(try Disk.tree(folder.url) == ["notes.txt"])
  }

  @Test("links are written as links")
  func links() throws {
    let folder = try TemporaryDirectory()
    let wrapper = FileWrapper(directoryWithFileWrappers: [
      "target.txt": FileWrapper(regularFileWithContents: Data("t".utf8)),
      "link": FileWrapper(symbolicLinkWithDestination: "target.txt"),
    ])
    try wrapper.write(to: folder.file("Doc.mydoc"))
    #expect(try Disk.tree(folder.file("Doc.mydoc")) == ["link -> target.txt", "target.txt"])
  }
}

#if canImport(Glibc)
  import Glibc
#endif
