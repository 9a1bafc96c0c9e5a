import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// Every file-system call of the sync agent goes through `Sys`, so a test can fail each one in
/// turn: a download, a move and the settings' save are run once to list their calls, then
/// once per call with that call failing. Whichever fails, the user's item is whole (as it was,
/// or as downloaded), nothing is left beside it, and the error is typed.
@Suite("Downloads failing at each of their system calls")
struct DownloadFaultSweepTests {
  /// Where the package's sources are, from this file's path.
  static let sources = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Sources/QuireSync")

  @Test("QuireSync reaches the file system only through Sys, so these sweeps see every call")
  func onlyThroughSys() throws {
    // `FileManager.default`, a call qualified with `Glibc.`, or a bare libc call.
    let bare = try Regex(
      #"FileManager\.default|Glibc\.[a-z]|(^|[^.\w])(lstat|fstat|open|openat|pread|pwrite|unlink|rmdir|mkdir|chmod|fchmod|fsync|rename|renameat|ftruncate|link|symlink|dup|utimensat|futimens|opendir|readdir|getxattr|setxattr|lsetxattr)\("#
    )
    var found: [String] = []
    let files = FileManager.default.enumerator(atPath: Self.sources.path)!
    var count = 0
    while let file = files.nextObject() as? String {
      guard file.hasSuffix(".swift") else { continue }
      count += 1
      let text = try String(contentsOf: Self.sources.appendingPathComponent(file), encoding: .utf8)
      for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
        .enumerated()
      where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//")
        && !line.contains("func ") && line.contains(bare)
      {
        found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
      }
    }
    #expect(count > 50, "the sources were found")
    #expect(found.isEmpty, "\(found.joined(separator: "\n"))")
  }

  /// Runs `body` once to list its calls, then once with each call failing (`ENOSPC`); `check`
  /// is told which call failed and whether `body` threw, after each run.
  static func sweep(
    _ body: () throws -> Void, reset: () throws -> Void,
    check: (_ call: String, _ error: (any Error)?) throws -> Void
  ) throws {
    try reset()
    let calls = try Faults.record(body)
    #expect(calls.count > 5, "the calls were seen: \(calls)")
    for index in calls.indices {
      try reset()
      var failure: (any Error)?
      do { try Faults.failing(call: index, errno: ENOSPC, body) } catch { failure = error }
      try check("\(index) \(calls[index])", failure)
    }
  }

  /// Whether `error` is one of the library's typed errors, with a code and a message naming the
  /// path (the coordination's own are `QuireError`s).
  static func isTyped(_ error: (any Error)?) -> Bool {
    error is SyncError || error is QuireError
  }

  /// What `folder` holds, hidden names included.
  static func names(_ folder: TemporaryDirectory) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
  }

  @Test("a whole package downloaded over one leaves the old package or the new one, never a mix")
  func wholePackage() throws {
    let folder = try TemporaryDirectory()
    let id = UUID().uuidString
    let package = folder.file("Doc.mydoc")
    var expected: [String: LocalItem.Member] = [:]
    let writer = DownloadWriter(folder: folder.url, identity: id)
    let manifest = ReplacedFilesTests.manifest("the server's text\n", id: id)
    try Self.sweep {
      _ = try writer.write(
        manifest, to: "Doc.mydoc", chunk: { _ in Array("the server's text\n".utf8) },
        incremental: false, expecting: expected, replacing: true)
    } reset: {
      try? FileManager.default.removeItem(at: package)
      expected = try ReplacedFilesTests.package(in: folder, id: id)
    } check: { call, error in
      let members = try FileManager.default.contentsOfDirectory(atPath: package.path).sorted()
      let text = try Disk.read(package.appendingPathComponent("text.txt"))
      let old = members == ["image.png", "text.txt"] && text == "the text\n"
      let new = members == ["text.txt"] && text == "the server's text\n"
      #expect(old || new, "failing \(call): \(members), \(text)")
      #expect(
        error == nil ? new : Self.isTyped(error), "failing \(call): \(String(describing: error))")
      // A staging folder whose own removal failed is left, under its hidden name, for the
      // agent's sweep at its next start.
      SyncAgent.removeLeftovers(in: folder.path)
      let left = try Self.names(folder)
      #expect(
        left == ["Doc.mydoc"],
        "failing \(call): nothing left beside it: \(left) \(String(describing: error))")
    }
  }

  @Test("a file downloaded over one leaves the old file or the new one, never a mix")
  func flatFile() throws {
    let folder = try TemporaryDirectory()
    let id = UUID().uuidString
    let file = folder.file("Note.txt")
    var expected: [String: LocalItem.Member] = [:]
    let writer = DownloadWriter(folder: folder.url, identity: id)
    let bytes = Array("the server's text\n".utf8)
    let hash = ContentHash(of: bytes)
    let manifest = RevisionManifest(
      item: id, revision: 7, since: nil, kind: .file, path: "Documents/Note.txt", deleted: false,
      conflict: false,
      change: ManifestChange(upserted: [
        ManifestMember(
          path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
          chunks: [ChunkReference(hash: hash, size: bytes.count)])
      ]))
    try Self.sweep {
      _ = try writer.write(
        manifest, to: "Note.txt", chunk: { _ in bytes }, incremental: false,
        expecting: expected, replacing: true)
    } reset: {
      try Disk.write("the text\n", to: file)
      try ItemIdentity.assign(id, to: file)
      expected = [
        "": try #require(LocalScanner.item(at: "Note.txt", root: folder.url)?.members[""])
      ]
    } check: { call, error in
      let text = try Disk.read(file)
      #expect(text == "the text\n" || text == "the server's text\n", "failing \(call): \(text)")
      #expect(
        error == nil ? text == "the server's text\n" : Self.isTyped(error),
        "failing \(call): \(String(describing: error))")
      #expect(try Self.names(folder) == ["Note.txt"], "failing \(call): nothing left beside it")
    }
  }

  @Test("a move brought from the server leaves the item at one of its two places, whole")
  func move() throws {
    let folder = try TemporaryDirectory()
    let writer = DownloadWriter(folder: folder.url, identity: UUID().uuidString)
    try Self.sweep {
      try writer.move(from: "A/Note.txt", to: "B/C/Note.txt")
    } reset: {
      try? FileManager.default.removeItem(at: folder.file("B"))
      try Disk.write("the text", to: folder.file("A/Note.txt"))
    } check: { call, error in
      let there = try Disk.tree(folder.url).filter { $0.hasSuffix("Note.txt") }
      #expect(there == ["A/Note.txt"] || there == ["B/C/Note.txt"], "failing \(call): \(there)")
      #expect(error == nil ? there == ["B/C/Note.txt"] : Self.isTyped(error), "failing \(call)")
      let moved = there.first.map { folder.file($0) }
      #expect(try moved.map(Disk.read) == "the text")
    }
  }

  @Test("the sign-in's settings, saved over old ones, are the old or the new ones, whole")
  func settings() throws {
    let folder = try TemporaryDirectory()
    let location = folder.file("config/quire/sync.json")
    let old = SyncSettings(
      server: URL(string: "https://old.example")!, user: "alice", device: "d1", token: "t1",
      container: "iCloud.test")
    var new = old
    new.server = URL(string: "https://new.example")!
    new.token = "t2"
    try Self.sweep {
      try new.save(to: location)
    } reset: {
      try? FileManager.default.removeItem(at: folder.file("config"))
      try old.save(to: location)
    } check: { call, error in
      let saved = try SyncSettings.load(from: location)
      #expect(saved == old || saved == new, "failing \(call)")
      #expect(error == nil ? saved == new : Self.isTyped(error), "failing \(call)")
      #expect(
        try FileManager.default.contentsOfDirectory(
          atPath: location.deletingLastPathComponent().path)
          == ["sync.json"], "failing \(call): nothing left beside it")
    }
  }
}
