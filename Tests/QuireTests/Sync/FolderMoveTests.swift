import Foundation
import GRDB
import Quire
import QuireCore
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// A folder renamed or moved on one device is one commit on the server, one journal entry,
/// and one rename on every other device, whatever it holds. In-process agents against a real
/// server, driven push by pull.
@Suite("Quire Sync: a folder's move is one step")
struct FolderMoveTests {
  /// Two devices of alice's with `count` documents in "Album" (and one in "Album/Old"), and one
  /// outside it, synced on both.
  static func twoDevices(_ count: Int, download: DownloadPolicy = .all) async throws -> (
    server: SyncServerProcess, home: TemporaryDirectory, a: SyncAgent, folderA: URL,
    b: SyncAgent, folderB: URL, stateB: URL
  ) {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let home = try TemporaryDirectory()
    let (a, folderA, _) = try await inProcessAgent(
      "A", server: server, home: home, download: .all)
    let album = folderA.appendingPathComponent("Album/Old")
    try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
    for index in 0..<count {
      try Data("page \(index)\n".utf8).write(
        to: folderA.appendingPathComponent("Album/Page \(index).txt"))
    }
    try Data("old\n".utf8).write(to: album.appendingPathComponent("Cover.txt"))
    try Data("mine\n".utf8).write(to: folderA.appendingPathComponent("Other.txt"))
    try await a.pushLocalChanges()
    let (b, folderB, stateB) = try await inProcessAgent(
      "B", server: server, home: home, download: download)
    try await b.pull()
    return (server, home, a, folderA, b, folderB, stateB)
  }

  /// The journal after `cursor`, as the server gives it.
  static func journal(_ server: SyncServerProcess, since cursor: Int64) async throws
    -> [ChangeEntry]
  {
    let client = try await server.client(
      "alice", device: "check", container: "iCloud.net.gacha.quire")
    return try await client.changes(since: cursor).entries
  }

  @Test(
    "a folder renamed on one device is one journal entry, and one rename on the other, whatever it holds"
  )
  func renameIsOneStep() async throws {
    let (server, home, a, folderA, b, folderB, stateB) = try await Self.twoDevices(300)
    defer { withExtendedLifetime((server, home)) {} }
    let before = try SyncState(readingOnly: stateB).cursor
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"),
      to: folderA.appendingPathComponent("Album 2026"))
    try await a.pushLocalChanges()
    let entries = try await Self.journal(server, since: before)
    #expect(entries.count == 1, "journal entries for the rename: \(entries.count)")
    #expect(
      entries.first?.folderMove
        == FolderMove(from: "Documents/Album", to: "Documents/Album 2026"))

    let counter = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(counter.hook) { try await b.pull() }
    #expect(
      counter["renameat2"] + counter["rename"] == 1,
      "renames on B: \(counter["renameat2"]) and \(counter["rename"])")
    let renamed = folderB.appendingPathComponent("Album 2026")
    #expect(!FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Album").path))
    #expect(
      (try FileManager.default.contentsOfDirectory(atPath: renamed.path)).filter {
        $0.hasSuffix(".txt")
      }.count == 300)
    #expect(
      try String(contentsOf: renamed.appendingPathComponent("Old/Cover.txt"), encoding: .utf8)
        == "old\n")
    // B's records follow: its next push finds nothing to send, and A's none either.
    let cursor = try SyncState(readingOnly: stateB).cursor
    try await b.pushLocalChanges()
    try await a.pushLocalChanges()
    #expect(try await Self.journal(server, since: cursor).isEmpty)
    let records = try SyncState(readingOnly: stateB).syncedItems().values
    #expect(records.filter { $0.path.hasPrefix("Album 2026/") }.count == 301)
  }

  @Test("a folder renamed with a document in it edited is still one move, and the edit follows")
  func renamedWithEdit() async throws {
    let (server, home, a, folderA, b, folderB, stateB) = try await Self.twoDevices(50)
    defer { withExtendedLifetime((server, home)) {} }
    let before = try SyncState(readingOnly: stateB).cursor
    try Data("page 4, edited\n".utf8).write(
      to: folderA.appendingPathComponent("Album/Page 4.txt"))
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"), to: folderA.appendingPathComponent("Book"))
    let counter = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(counter.hook) { try await a.pushLocalChanges() }
    let entries = try await Self.journal(server, since: before)
    #expect(entries.count == 2, "\(entries.map { $0.folderMove.map { "\($0)" } ?? $0.path })")
    #expect(entries.first?.folderMove != nil)
    #expect(entries.last?.path == "Documents/Book/Page 4.txt" && entries.last?.item != "")
    // Only the edited document is opened to be read; the 50 others are not.
    #expect(counter["open"] < 20, "files opened by the push: \(counter["open"])")
    try await b.pull()
    #expect(
      try String(
        contentsOf: folderB.appendingPathComponent("Book/Page 4.txt"), encoding: .utf8)
        == "page 4, edited\n")
    #expect(!FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Album").path))
  }

  @Test("a document open on the other device follows its folder's rename")
  func openDocumentFollows() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(5)
    defer { withExtendedLifetime((server, home)) {} }
    let presenter = RecordingPresenter(folderB.appendingPathComponent("Album/Page 1.txt"))
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"), to: folderA.appendingPathComponent("Book"))
    try await a.pushLocalChanges()
    try await b.pull()
    let moved = folderB.appendingPathComponent("Book/Page 1.txt").standardizedFileURL.path
    #expect(await presenter.waitFor { $0 == "moved \(moved)" } != nil, "\(presenter.messages)")
    #expect(presenter.presentedItemURL?.path == moved)
  }

  @Test(
    "a document edited on a device that has not heard of its folder's rename is merged into the renamed folder, with no conflict"
  )
  func offlineEditFollows() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(20)
    defer { withExtendedLifetime((server, home)) {} }
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"),
      to: folderA.appendingPathComponent("Album 2026"))
    try await a.pushLocalChanges()
    // B edits a page and a new document in the folder before it pulls the rename.
    try Data("page 3, edited on B\n".utf8).write(
      to: folderB.appendingPathComponent("Album/Page 3.txt"))
    try Data("new on B\n".utf8).write(to: folderB.appendingPathComponent("Album/New.txt"))
    try await b.pushLocalChanges()
    try await b.pull()
    try await a.pull()
    for folder in [folderA, folderB] {
      let page = folder.appendingPathComponent("Album 2026/Page 3.txt")
      #expect(try String(contentsOf: page, encoding: .utf8) == "page 3, edited on B\n")
      let names = try FileManager.default.contentsOfDirectory(
        atPath: folder.appendingPathComponent("Album 2026").path)
      #expect(!names.contains { $0.contains("(") }, "conflict copies: \(names)")
      #expect(names.filter { $0.hasSuffix(".txt") }.count == 20)
    }
    // The document B made in the old folder after the move keeps its folder, as B made it.
    #expect(
      try String(contentsOf: folderA.appendingPathComponent("Album/New.txt"), encoding: .utf8)
        == "new on B\n")
  }

  @Test(
    "a device whose state has no remote tree still follows a move; a download of a revision from before it lands in the moved folder"
  )
  func oldStateAndOldRevision() async throws {
    let (server, home, a, folderA, b, folderB, stateB) = try await Self.twoDevices(10)
    defer { withExtendedLifetime((server, home)) {} }
    // A state from before the remote tree (its table made empty by that migration).
    let queue = try DatabaseQueue(path: stateB.path)
    try await queue.write { try $0.execute(sql: "DELETE FROM remote") }
    let page = try #require(
      try SyncState(readingOnly: stateB).syncedItems().values.first {
        $0.path == "Album/Page 2.txt"
      })
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"), to: folderA.appendingPathComponent("Book"))
    try await a.pushLocalChanges()
    try await b.pull()
    #expect(
      FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Book/Page 2.txt").path)
    )
    // An entry applied again after its item changed here downloads the revision it named,
    // from before the move: it lands in the moved folder, not the old one.
    try await b.download(item: page.id, revision: page.revision, base: nil)
    #expect(!FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Album").path))
    #expect(
      try String(contentsOf: folderB.appendingPathComponent("Book/Page 2.txt"), encoding: .utf8)
        == "page 2\n")
  }

  @Test(
    "a folder moved item by item on a device (its new name taken there) leaves no empty folder behind"
  )
  func itemByItemLeavesNothing() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(5)
    defer { withExtendedLifetime((server, home)) {} }
    // B has an empty folder of its own under the new name (an empty folder is no item): the
    // move cannot be one rename there, so the items move one by one.
    try FileManager.default.createDirectory(
      at: folderB.appendingPathComponent("Album 2026"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"),
      to: folderA.appendingPathComponent("Album 2026"))
    try await a.pushLocalChanges()
    try await b.pull()
    let moved = folderB.appendingPathComponent("Album 2026")
    #expect(FileManager.default.fileExists(atPath: moved.appendingPathComponent("Page 4.txt").path))
    #expect(
      FileManager.default.fileExists(atPath: moved.appendingPathComponent("Old/Cover.txt").path))
    let left =
      (try? FileManager.default.subpathsOfDirectory(
        atPath: folderB.appendingPathComponent("Album").path)) ?? []
    #expect(
      !FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Album").path),
      "left behind: Album/\(left)")
  }

  @Test("placeholders move with their folder on a device that keeps them in the cloud")
  func placeholdersMove() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(
      30, download: .onDemand(downloadingUnder: 0))
    defer { withExtendedLifetime((server, home)) {} }
    try FileManager.default.moveItem(
      at: folderB.appendingPathComponent("Album"),
      to: folderB.appendingPathComponent("Pictures"))
    try await b.pushLocalChanges()
    try await a.pull()
    let names = try FileManager.default.contentsOfDirectory(
      atPath: folderA.appendingPathComponent("Pictures").path)
    #expect(names.filter { $0.hasSuffix(".txt") }.count == 30, "\(names.count) in A's folder")
    let live = try await Self.journal(server, since: 0)
    #expect(!live.contains { $0.deleted }, "documents deleted by the rename")
  }

  @Test("a placeholder moved on its own is that document moved, not deleted")
  func placeholderMovedAlone() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(
      5, download: .onDemand(downloadingUnder: 0))
    defer { withExtendedLifetime((server, home)) {} }
    let placeholder = CloudPlaceholder.url(for: folderB.appendingPathComponent("Album/Page 1.txt"))
    try FileManager.default.moveItem(
      at: placeholder,
      to: CloudPlaceholder.url(for: folderB.appendingPathComponent("Page 1.txt")))
    try await b.pushLocalChanges()
    try await a.pull()
    #expect(
      try String(contentsOf: folderA.appendingPathComponent("Page 1.txt"), encoding: .utf8)
        == "page 1\n")
    #expect(
      !FileManager.default.fileExists(
        atPath: folderA.appendingPathComponent("Album/Page 1.txt").path))
    let entries = try await Self.journal(server, since: 0)
    #expect(!entries.contains { $0.deleted }, "the document was deleted")
  }

  @Test(
    "a move into a folder that already has documents, or of a shared folder's subfolder, is refused and made item by item"
  )
  func refusedMovesItemByItem() async throws {
    let (server, home, a, folderA, b, folderB, _) = try await Self.twoDevices(5)
    defer { withExtendedLifetime((server, home)) {} }
    let target = folderA.appendingPathComponent("Target")
    try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
    try Data("there\n".utf8).write(to: target.appendingPathComponent("Here.txt"))
    try await a.pushLocalChanges()
    try await b.pull()
    // "Album" moves to "Target/Album": a new folder inside one with documents is fine.
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Album"), to: target.appendingPathComponent("Album"))
    try await a.pushLocalChanges()
    try await b.pull()
    #expect(
      FileManager.default.fileExists(
        atPath: folderB.appendingPathComponent("Target/Album/Page 2.txt").path))
    // Its "Old" subfolder merged with an existing "Target/Old" goes item by item.
    try FileManager.default.createDirectory(
      at: target.appendingPathComponent("Old"), withIntermediateDirectories: true)
    try Data("kept\n".utf8).write(to: target.appendingPathComponent("Old/Kept.txt"))
    try await a.pushLocalChanges()
    try FileManager.default.moveItem(
      at: target.appendingPathComponent("Album/Old/Cover.txt"),
      to: target.appendingPathComponent("Old/Cover.txt"))
    try FileManager.default.removeItem(at: target.appendingPathComponent("Album/Old"))
    try await a.pushLocalChanges()
    try await b.pull()
    #expect(
      try String(
        contentsOf: folderB.appendingPathComponent("Target/Old/Cover.txt"), encoding: .utf8)
        == "old\n")
    #expect(
      FileManager.default.fileExists(
        atPath: folderB.appendingPathComponent("Target/Old/Kept.txt").path))
  }
}
