import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// "Cost follows the change" in the agent: a push after the monitor said where the folder
/// changed looks there only. Before, every push scanned the whole folder by `stat`, so one edit
/// in a drive of 100 000 files cost 100 000 stats. Counted through `Sys`, at two sizes.
@Suite("Cost follows the change: a push looks where the folder changed")
struct PushCostTests {
  /// The `Sys` calls of a push of one edit and of one rename in a drive of `files` synced
  /// files, each said by the monitor, then a deletion pushed; and the drive's synced paths
  /// after.
  static func oneEdit(in files: Int) async throws -> (
    edit: PullScanCostTests.Counter, moves: PullScanCostTests.Counter, synced: [String: Int64]
  ) {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let (a, folder) = try await PullScanCostTests.agent("A", server: server, home: home)
    try Self.fill(folder, files: files)
    try await a.pushRequested()  // the first push, at start: the whole folder
    // An edit, said by the monitor.
    let edited = "Folder 0/Note 7.txt"
    let handle = try FileHandle(forWritingTo: folder.appendingPathComponent(edited))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("an edit\n".utf8))
    try handle.close()
    await a.requestPush(changed: [edited])
    let edit = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(edit.hook) { try await a.pushRequested() }
    // A rename, said by the monitor as it says one: where it went and where it was.
    try FileManager.default.moveItem(
      at: folder.appendingPathComponent("Folder 0/Note 8.txt"),
      to: folder.appendingPathComponent("Folder 0/Renamed.txt"))
    await a.requestPush(changed: ["Folder 0/Renamed.txt", "Folder 0/Note 8.txt"])
    let moves = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(moves.hook) { try await a.pushRequested() }
    // A deletion (its push looks at the whole folder once more before it deletes: see
    // `SyncAgent.stillHere`).
    try FileManager.default.removeItem(at: folder.appendingPathComponent("Folder 0/Note 9.txt"))
    await a.requestPush(changed: ["Folder 0/Note 9.txt"])
    try await a.pushRequested()
    let synced = Dictionary(
      await a.synced.values.map { ($0.path, $0.revision) }, uniquingKeysWith: max)
    return (edit, moves, synced)
  }

  /// Writes `files` small notes in `folder`, 500 to a subfolder: "Folder 0/Note 0.txt", …
  static func fill(_ folder: URL, files: Int) throws {
    for index in 0..<files {
      let subfolder = folder.appendingPathComponent("Folder \(index / 500)")
      if index % 500 == 0 {
        try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
      }
      try Data("file \(index)\n".utf8).write(
        to: subfolder.appendingPathComponent("Note \(index).txt"))
    }
  }

  @Test("an edit and a rename cost the same at 500 synced files and at 5 000; a deletion syncs")
  func pushFollowsTheChange() async throws {
    let small = try await Self.oneEdit(in: 500)
    let large = try await Self.oneEdit(in: 5_000)
    for run in [small, large] {
      // What was said synced: the edit a new revision, the rename kept its item, the deletion
      // went, and everything else is still there.
      #expect(run.synced["Folder 0/Note 7.txt"].map { $0 > 1 } == true, "the edit was sent")
      #expect(run.synced["Folder 0/Renamed.txt"] != nil && run.synced["Folder 0/Note 8.txt"] == nil)
      #expect(run.synced["Folder 0/Note 9.txt"] == nil, "the deletion was sent")
      #expect(run.synced["Folder 0/Note 10.txt"] != nil)
    }
    #expect(small.synced.count == 499 && large.synced.count == 4_999)
    // A whole scan made a stat per file (500 against 5 000), and listed every folder.
    for call in ["stat", "readdir"] {
      #expect(
        large.edit[call] == small.edit[call],
        "\(call) calls of an edit's push: \(small.edit[call]) at 500 files, \(large.edit[call]) at 5 000"
      )
      #expect(
        large.moves[call] == small.moves[call],
        "\(call) calls of a rename's push: \(small.moves[call]) at 500 files, \(large.moves[call]) at 5 000"
      )
    }
    #expect(large.edit["stat"] < 20, "an edit's push: \(large.edit["stat"]) stat calls")
  }

  @Test(
    "a copy that kept its original's identity, heard alone, is a new document; the original stays")
  func copyHeardAlone() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let (a, folder) = try await PullScanCostTests.agent("A", server: server, home: home)
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("Notes"), withIntermediateDirectories: true)
    try Data("original\n".utf8).write(to: folder.appendingPathComponent("Notes/Plan.txt"))
    try await a.pushRequested()
    let original = try ItemIdentity.of(folder.appendingPathComponent("Notes/Plan.txt"))
    // `cp -a`, or a file manager's duplicate: the identity goes with the copy.
    let copy = folder.appendingPathComponent("Plan copy.txt")
    try FileManager.default.copyItem(at: folder.appendingPathComponent("Notes/Plan.txt"), to: copy)
    try ItemIdentity.assign(original, to: copy)
    await a.requestPush(changed: ["Plan copy.txt"])
    try await a.pushRequested()
    let synced = await a.synced.values.map { ($0.path, $0.id) }
    let byPath = Dictionary(synced, uniquingKeysWith: { first, _ in first })
    #expect(byPath["Notes/Plan.txt"] == original, "the original kept its identity and place")
    #expect(byPath["Plan copy.txt"].map { $0 != original } == true, "the copy is a new document")
    #expect(try ItemIdentity.of(copy) != original)
  }

  @Test(
    "a document moved into a new folder, heard leaving before it is heard arriving, is moved, not deleted"
  )
  func moveHeardInHalves() async throws {
    // Found by CI (`SyncOnDemandTests`): the new folder's watch lists what it holds only once
    // it is watched, so the move's first half came alone, and the push deleted the document.
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let (a, folder) = try await PullScanCostTests.agent("A", server: server, home: home)
    try Data("draft\n".utf8).write(to: folder.appendingPathComponent("Old.txt"))
    try await a.pushRequested()
    let id = try ItemIdentity.of(folder.appendingPathComponent("Old.txt"))
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("Sub"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(
      at: folder.appendingPathComponent("Old.txt"), to: folder.appendingPathComponent("Sub/New.txt")
    )
    await a.requestPush(changed: ["Old.txt"])
    try await a.pushRequested()
    await a.requestPush(changed: ["Sub/New.txt"])
    try await a.pushRequested()
    try await a.pushRequested()
    let check = try await server.client(
      "alice", device: "check", container: "iCloud.net.gacha.quire")
    let entries = try await check.changes(since: 0).entries
    #expect(!entries.contains { $0.deleted }, "no deletion went up: \(entries)")
    #expect(entries.last?.item == id && entries.last?.path == "Documents/Sub/New.txt")
  }
}
