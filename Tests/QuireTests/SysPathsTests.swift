import Foundation
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// The path helpers built of `Sys` calls: what `FileManager` did for the sync agent, where a
/// test can now fail any call.
@Suite("Sys path helpers")
struct SysPathsTests {
  @Test("makeFolders makes every missing folder, uses one made meanwhile, and refuses a file")
  func makeFolders() throws {
    let folder = try TemporaryDirectory()
    let deep = folder.file("a/b/c").path
    try Sys.makeFolders(deep)
    #expect(try Sys.isFolder(deep))
    try Sys.makeFolders(deep)  // already there: nothing to do
    try Disk.write("a file", to: folder.file("f"))
    #expect(throws: SystemCallError.self) {
      try Sys.makeFolders(folder.file("f/g").path)
    }
    #expect(try Disk.read(folder.file("f")) == "a file")
  }

  @Test("contents is nil for nothing there, the bytes for a file, and an error otherwise")
  func contents() throws {
    let folder = try TemporaryDirectory()
    #expect(try Sys.contents(of: folder.file("none").path) == nil)
    try Disk.write("bytes", to: folder.file("file"))
    #expect(try Sys.contents(of: folder.file("file").path) == Data("bytes".utf8))
    #expect(throws: SystemCallError.self) { try Sys.contents(of: folder.path) }  // EISDIR
  }

  @Test(
    "replaceDurably failing at any of its calls leaves the old file whole and nothing beside it")
  func replaceDurably() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("settings.json").path
    try Disk.write("old", to: folder.file("settings.json"))
    let calls = try Faults.record {
      try Sys.replaceDurably(file, with: Data("new".utf8), mode: 0o600)
    }
    #expect(calls.contains("fsync") && calls.contains("rename"))
    let renamed = try #require(calls.firstIndex(of: "rename"))
    try Disk.write("old", to: folder.file("settings.json"))
    for index in calls.indices {
      var failed = false
      do {
        try Faults.failing(call: index, errno: EIO) {
          try Sys.replaceDurably(file, with: Data("new".utf8), mode: 0o600)
        }
      } catch {
        failed = true
      }
      let text = try Disk.read(folder.file("settings.json"))
      // After the rename, only the folder's fsync is left: the new file is in place, and the
      // caller is told it may not be durable yet.
      #expect(failed, "call \(index) (\(calls[index])) failed unnoticed")
      #expect(text == (index > renamed ? "new" : "old"), "call \(index): \(calls[index])")
      #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["settings.json"])
      try Disk.write("old", to: folder.file("settings.json"))
    }
    var info = stat()
    try Sys.replaceDurably(file, with: Data("new".utf8), mode: 0o600)
    #expect(lstat(file, &info) == 0 && info.st_mode & 0o777 == 0o600)
  }

  @Test("move never replaces what is at its target")
  func moveKeepsTarget() throws {
    let folder = try TemporaryDirectory()
    try Disk.write("one", to: folder.file("one"))
    try Disk.write("two", to: folder.file("two"))
    #expect(throws: SystemCallError.self) {
      try Sys.move(folder.file("one").path, to: folder.file("two").path)
    }
    #expect(try Disk.read(folder.file("two")) == "two")
    try Sys.move(folder.file("one").path, to: folder.file("three").path)
    #expect(try Disk.read(folder.file("three")) == "one")
  }
}
