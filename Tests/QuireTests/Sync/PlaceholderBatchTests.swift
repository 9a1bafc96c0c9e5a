import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// A device that downloads on demand joins a drive that already holds many documents: each
/// shows as a placeholder, recorded, readable on demand, and the pull makes them durable with a
/// few barriers a page, not one (and a transaction) per placeholder.
@Suite("Quire Sync: placeholders of a first sync, in batches")
struct PlaceholderBatchTests {
  /// A server, and a device A that uploaded `count` small documents (spread over three
  /// folders) and one package with a thumbnail; then a fresh device B on demand, which has not
  /// pulled yet.
  static func joining(_ count: Int) async throws -> (
    server: SyncServerProcess, home: TemporaryDirectory, b: SyncAgent, folderB: URL,
    stateB: URL
  ) {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let home = try TemporaryDirectory()
    func agent(_ name: String, download: DownloadPolicy) async throws -> (SyncAgent, URL, URL) {
      try await Self.agent(name, server: server, home: home, download: download)
    }
    let (a, folderA, _) = try await agent("A", download: .all)
    for index in 0..<count {
      let folder = folderA.appendingPathComponent("d\(index % 3)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data("note \(index)\n".utf8).write(to: folder.appendingPathComponent("n\(index).txt"))
    }
    let album = folderA.appendingPathComponent("Album.album/QuickLook")
    try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
    try Data("<svg/>".utf8).write(to: album.appendingPathComponent("Thumbnail.svg"))
    try await a.pushLocalChanges()
    let (b, folderB, stateB) = try await agent("B", download: .onDemand(downloadingUnder: 0))
    return (server, home, b, folderB, stateB)
  }

  /// Device `name` of alice's, its folder and its state file under `home`.
  static func agent(
    _ name: String, server: SyncServerProcess, home: TemporaryDirectory, download: DownloadPolicy
  ) async throws -> (SyncAgent, URL, URL) {
    try await inProcessAgent(name, server: server, home: home, download: download)
  }

  @Test("a placeholder that cannot be written names the file, and asks for space only when full")
  func writeFailureMessage() async throws {
    let (server, home, b, folderB, _) = try await Self.joining(4)
    defer { withExtendedLifetime((server, home)) {} }
    for (errno, says, saysNot) in [(EIO, "can be written", "space"), (ENOSPC, "space", "")] {
      let failure = await #expect(throws: SyncError.self) {
        try await Sys.$faults.withValue(FaultHook { $0 == "write" ? errno : nil }) {
          try await b.pull()
        }
      }
      let message = failure?.message ?? ""
      #expect(message.contains("Could not write the placeholder") && message.contains(says))
      #expect(saysNot.isEmpty || !message.contains(saysNot), "\(message)")
    }
    try await b.pull()
    #expect(CloudPlaceholder.find(for: folderB.appendingPathComponent("d0/n0.txt")) != nil)
  }

  @Test(
    "a new document at a path another item passes through in the same page keeps its placeholder, and is not deleted"
  )
  func pathNamedTwiceInPage() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let home = try TemporaryDirectory()
    defer { withExtendedLifetime((server, home)) {} }
    let (a, folderA, _) = try await Self.agent("A", server: server, home: home, download: .all)
    let (b, folderB, _) = try await Self.agent(
      "B", server: server, home: home, download: .onDemand(downloadingUnder: 0))
    try Data("old\n".utf8).write(to: folderA.appendingPathComponent("y.txt"))
    try await a.pushLocalChanges()
    try await b.pull()
    #expect(CloudPlaceholder.find(for: folderB.appendingPathComponent("y.txt")) != nil)
    // While B is away: y.txt is renamed to a.txt, then deleted; then a new a.txt and two more
    // documents are made. B reads all of it in one page.
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("y.txt"), to: folderA.appendingPathComponent("a.txt"))
    try await a.pushLocalChanges()
    try FileManager.default.removeItem(at: folderA.appendingPathComponent("a.txt"))
    try await a.pushLocalChanges()
    for name in ["a.txt", "b.txt", "c.txt"] {
      try Data("new \(name)\n".utf8).write(to: folderA.appendingPathComponent(name))
    }
    try await a.pushLocalChanges()
    let newA = try #require(ItemIdentity.stored(at: folderA.appendingPathComponent("a.txt")))
    try await b.pull()
    for name in ["a.txt", "b.txt", "c.txt"] {
      let placeholder = try #require(
        CloudPlaceholder.find(for: folderB.appendingPathComponent(name)),
        "no placeholder of \(name)")
      #expect(placeholder.size == Int64("new \(name)\n".utf8.count))
    }
    #expect(CloudPlaceholder.find(for: folderB.appendingPathComponent("a.txt"))?.identity == newA)
    // B's next push takes nothing for a deletion: the new a.txt stays on A.
    try await b.pushLocalChanges()
    try await a.pull()
    #expect(
      try String(contentsOf: folderA.appendingPathComponent("a.txt"), encoding: .utf8)
        == "new a.txt\n")
  }

  @Test("each new document shows as a placeholder, recorded, with no temporary file left")
  func placeholders() async throws {
    let (server, home, b, folderB, stateB) = try await Self.joining(40)
    defer { withExtendedLifetime((server, home)) {} }
    try await b.pull()
    for index in 0..<40 {
      let document = folderB.appendingPathComponent("d\(index % 3)/n\(index).txt")
      let placeholder = try #require(CloudPlaceholder.find(for: document), "n\(index).txt")
      #expect(placeholder.size == Int64("note \(index)\n".utf8.count))
      #expect(!FileManager.default.fileExists(atPath: document.path))
    }
    // The package with a thumbnail took the one-by-one path, which fetched its thumbnail.
    let album = try #require(
      CloudPlaceholder.find(for: folderB.appendingPathComponent("Album.album")))
    #expect(album.thumbnail != nil)
    let leftovers = try FileManager.default.subpathsOfDirectory(atPath: folderB.path)
      .filter { ($0 as NSString).lastPathComponent.hasPrefix(".quire-sync-") }
    #expect(leftovers.isEmpty, "\(leftovers)")
    // Recorded as placeholders: B's state knows every one, at the server's revision.
    let records = try SyncState(readingOnly: stateB).syncedItems()
    #expect(records.values.filter(\.isPlaceholder).count == 41)
    // A placeholder is a record: a download brings the document, whole.
    try await b.downloadPlaceholder(at: "d1/n7.txt")
    #expect(
      try String(contentsOf: folderB.appendingPathComponent("d1/n7.txt"), encoding: .utf8)
        == "note 7\n")
    // A second pull has nothing to place, and places nothing twice.
    let before = try FileManager.default.subpathsOfDirectory(atPath: folderB.path).sorted()
    try await b.pull()
    #expect(try FileManager.default.subpathsOfDirectory(atPath: folderB.path).sorted() == before)
  }

  @Test("the durability barriers of a page do not grow with its placeholders")
  func barriersPerPage() async throws {
    func barriers(_ count: Int) async throws -> (syncfs: Int, fsync: Int) {
      let (server, home, b, _, _) = try await Self.joining(count)
      defer { withExtendedLifetime((server, home)) {} }
      let counter = PullScanCostTests.Counter()
      try await Sys.$faults.withValue(counter.hook) { try await b.pull() }
      return counter.counts.withLock { ($0["syncfs"] ?? 0, $0["fsync"] ?? 0) }
    }
    let few = try await barriers(20)
    let many = try await barriers(200)
    #expect(few.syncfs >= 1, "the placeholders are made durable")
    #expect(many.syncfs == few.syncfs, "one syncfs a page: \(few) then \(many)")
    // The package's placeholder and the folders that gained names: the same at both sizes.
    #expect(many.fsync == few.fsync, "fsyncs: \(few) then \(many)")
  }
}
