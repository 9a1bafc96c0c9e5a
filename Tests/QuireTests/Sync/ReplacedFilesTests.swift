import Foundation
import Quire
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 27, hole 1: a program that does not coordinate truncates a file (`open(…, "w")`) and
/// writes later. If a download replaces the file in between, the write lands in the replaced
/// file, which no name reaches any more; the agent puts it back. It used to take 20 ms of quiet
/// for "the writer has finished", read the empty file, and put that back, so the write was lost.
@Suite("A download's put-back waits for the writer to close")
struct ReplacedFilesTests {
  /// Holds a value across a detached task (the test hands it over and does not touch it again).
  final class Handover<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
  }

  /// `Notes.txt` in `folder`, holding "synced", checked and held as a download is about to
  /// replace it.
  static func held(in folder: TemporaryDirectory) throws -> (URL, ReplacedFiles) {
    let file = folder.file("Notes.txt")
    try Data("synced\n".utf8).write(to: file)
    var info = stat()
    try #require(lstat(file.path, &info) == 0)
    return (
      file, try ReplacedFiles(checking: [""], at: file, expected: ["": LocalScanner.member(info)])
    )
  }

  /// Renames a downloaded file over `file`, as a download does.
  static func replace(_ file: URL, in folder: TemporaryDirectory) throws {
    let staged = folder.file(".quire-sync-staged")
    try Data("downloaded\n".utf8).write(to: staged)
    try #require(rename(staged.path, file.path) == 0)
  }

  @Test(
    "a writer that opened the file before the replacement and writes after the look keeps its write"
  )
  func openedThenWrittenAfterTheLook() async throws {
    // Found by chance (`SyncUncoordinatedWriteTests` under load): the look after the rename
    // found the replaced file unchanged and let it go, and the write that came after went to a
    // file no name reaches.
    let folder = try TemporaryDirectory()
    let (file, held) = try Self.held(in: folder)
    let replaced = Handover(held)
    let writer = open(file.path, O_WRONLY | O_APPEND)
    try #require(writer >= 0)
    try Self.replace(file, in: folder)
    let (back, restored) = AsyncStream<String>.makeStream()
    var waitedFor: [String] = []
    #expect(throws: SyncError.self, "not recorded as downloaded while a writer may still write") {
      try replaced.value.restoreOverwritten {
        waitedFor.append($0)
      } restored: {
        restored.yield($0)
      }
    }
    #expect(waitedFor == [file.path])
    let line = "written after the look\n"
    try #require(write(writer, line, line.utf8.count) == line.utf8.count)
    close(writer)
    let putBack = try await withDeadline(seconds: 60) { () async -> String? in
      for await path in back { return path }
      return nil
    }
    #expect(putBack == file.path)
    #expect(try String(contentsOf: file, encoding: .utf8) == "synced\n" + line, "the write is kept")
  }

  @Test("a writer that truncated the file and writes after the replacement keeps every byte")
  func truncatedThenWritten() async throws {
    let folder = try TemporaryDirectory()
    let (file, held) = try Self.held(in: folder)
    let replaced = Handover(held)
    // The other program opens the file for writing, truncating it, and writes nothing yet.
    let writer = open(file.path, O_WRONLY | O_TRUNC)
    try #require(writer >= 0)
    try Self.replace(file, in: folder)

    // The download does not wait: it is told the file changed, and the put-back waits on a
    // thread of its own while the writer has the file open.
    let (back, restored) = AsyncStream<String>.makeStream()
    var waitedFor: [String] = []
    #expect(throws: SyncError.self) {
      try replaced.value.restoreOverwritten {
        waitedFor.append($0)
      } restored: {
        restored.yield($0)
      }
    }
    #expect(waitedFor == [file.path], "the writer still had the file open")
    #expect(try String(contentsOf: file, encoding: .utf8) == "downloaded\n", "not put back yet")
    let line = "the writer's line, written late\n"
    try #require(write(writer, line, line.utf8.count) == line.utf8.count)
    close(writer)
    let putBack = try await withDeadline(seconds: 60) { () async -> String? in
      for await path in back { return path }
      return nil
    }
    #expect(putBack == file.path, "put back once the writer closed it")
    #expect(try String(contentsOf: file, encoding: .utf8) == line, "the late write is kept")
  }

  @Test(
    "a writer that already closed is put back at once, without waiting, and no wait is said to be over"
  )
  func closedWriter() async throws {
    let folder = try TemporaryDirectory()
    let (file, replaced) = try Self.held(in: folder)
    let writer = open(file.path, O_WRONLY | O_APPEND)
    try #require(writer >= 0)
    try #require(write(writer, "more\n", 5) == 5)
    close(writer)
    try Self.replace(file, in: folder)
    var waited = false
    let over = Mutex(0)
    #expect(throws: SyncError.self) {
      try replaced.restoreOverwritten(
        waiting: { _ in waited = true }, restored: { _ in over.withLock { $0 += 1 } })
    }
    #expect(!waited)
    // The agent holds the item until as many waits are over as were told: one over that was
    // never told left its count at -1, and `quire sync wait` unanswered for good.
    #expect(over.withLock { $0 } == 0)
    #expect(try String(contentsOf: file, encoding: .utf8) == "synced\nmore\n")
  }

  @Test("a file open for writing in another program is not uploaded until that program closes it")
  func openWriterIsNotUploaded() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("first\n", to: "Notes.txt")
    #expect(await eventually { b.text("Notes.txt") == "first\n" })
    // The other program truncates, as open(…, "w") does, and has not written yet.
    let writer = open(a.url("Notes.txt").path, O_WRONLY | O_TRUNC)
    try #require(writer >= 0)
    #expect(
      await eventually {
        (try? a.report().items.contains { $0.path == "Notes.txt" && $0.state == .waiting })
          == true
      }, "A's agent heard the truncation and waits for the writer")
    #expect(b.text("Notes.txt") == "first\n", "the empty file was not sent")
    let line = "second, written after a pause\n"
    try #require(write(writer, line, line.utf8.count) == line.utf8.count)
    close(writer)
    #expect(await eventually { b.text("Notes.txt") == line }, "the closed file is uploaded")
  }

  /// A package `Doc.mydoc` in `folder` with `text.txt` and `image.png`, of identity `id`; its
  /// members' stats as the agent would have recorded them.
  static func package(in folder: TemporaryDirectory, id: String) throws -> [String: LocalItem
    .Member]
  {
    let package = folder.file("Doc.mydoc")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    try Data("the text\n".utf8).write(to: package.appendingPathComponent("text.txt"))
    try Data("an image".utf8).write(to: package.appendingPathComponent("image.png"))
    try ItemIdentity.assign(id, to: package)
    var expected: [String: LocalItem.Member] = [:]
    LocalScanner.packageMembers(package.path, relative: "", into: &expected)
    return expected
  }

  /// A whole manifest of `Doc.mydoc` with one member, `text.txt`, holding `text`.
  static func manifest(_ text: String, id: String) -> RevisionManifest {
    let bytes = Array(text.utf8)
    let hash = ContentHash(of: bytes)
    return RevisionManifest(
      item: id, revision: 7, since: nil, kind: .package, path: "Documents/Doc.mydoc",
      deleted: false, conflict: false,
      change: ManifestChange(upserted: [
        ManifestMember(
          path: "text.txt", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
          chunks: [ChunkReference(hash: hash, size: bytes.count)])
      ]))
  }

  @Test(
    "a whole-package download never removes a package whose members changed or grew since they were synced",
    arguments: ["changed", "added", "as synced"])
  func wholePackageChecked(local: String) throws {
    let folder = try TemporaryDirectory()
    let id = UUID().uuidString
    let expected = try Self.package(in: folder, id: id)
    let package = folder.file("Doc.mydoc")
    if local == "changed" {
      try Data("the text, edited here\n".utf8).write(to: package.appendingPathComponent("text.txt"))
    } else if local == "added" {
      try Data("new here".utf8).write(to: package.appendingPathComponent("notes.txt"))
    }
    let manifest = Self.manifest("the server's text\n", id: id)
    let writer = DownloadWriter(folder: folder.url, identity: id)
    let write = {
      try writer.write(
        manifest, to: "Doc.mydoc", chunk: { _ in Array("the server's text\n".utf8) },
        incremental: false, expecting: expected)
    }
    let visible = {
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        .filter { !$0.hasPrefix(".") }.sorted()
    }
    if local == "as synced" {
      _ = try write()
      #expect(
        try String(contentsOf: package.appendingPathComponent("text.txt"), encoding: .utf8)
          == "the server's text\n")
      #expect(
        !FileManager.default.fileExists(atPath: package.appendingPathComponent("image.png").path))
    } else {
      #expect(throws: SyncError.self, "the download stops: the change is uploaded first") {
        try write()
      }
      let text = try String(contentsOf: package.appendingPathComponent("text.txt"), encoding: .utf8)
      #expect(text == (local == "changed" ? "the text, edited here\n" : "the text\n"))
      #expect(
        FileManager.default.fileExists(atPath: package.appendingPathComponent("image.png").path))
      #expect(
        FileManager.default.fileExists(atPath: package.appendingPathComponent("notes.txt").path)
          == (local == "added"))
    }
    #expect(try visible() == ["Doc.mydoc"], "nothing left beside it")
  }
}
