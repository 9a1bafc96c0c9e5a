import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// "Cost follows the change" for a participant too: a shared folder's agent, told by its
/// monitor where the folder changed, looks there only. Before, every push of a share's agent
/// scanned the whole shared folder. Counted through `Sys`, at two sizes.
@Suite("Cost follows the change: a shared folder's push looks where it changed")
struct SharePushCostTests {
  /// What one run found: the `Sys` calls of a participant's push of one edit and of one rename
  /// in a shared folder of `files` documents, each said by the monitor (one also outside the
  /// folder, as the monitor of "Shared with me" hears every share's), then a deletion pushed;
  /// and the share's synced paths after.
  struct Run {
    /// The edit's push.
    var edit: PullScanCostTests.Counter
    /// The rename's push.
    var rename: PullScanCostTests.Counter
    /// The share's synced paths and their revisions.
    var synced: [String: Int64]
  }

  /// Alice shares a folder of `files` documents with bob, whose share's agent syncs it; then
  /// bob edits, renames and deletes in it.
  static func oneEdit(in files: Int) async throws -> Run {
    let server = try await SyncServerProcess.started(
      users: ["alice": "alice-password", "bob": "bob-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let (alice, aliceFolder) = try await PullScanCostTests.agent("A", server: server, home: home)
    try PushCostTests.fill(aliceFolder.appendingPathComponent("Team"), files: files)
    try await alice.pushLocalChanges()
    _ = try await alice.client.share(folder: "Team", with: "bob", role: .write)
    let (bob, bobFolder) = try await PullScanCostTests.agent(
      "B", server: server, home: home, user: "bob")
    let info = try #require(try await bob.client.sharedWithMe().first)
    let team = try SyncAgent(share: info, parent: bob)
    try await team.pull()
    try await team.pushRequested()  // the first push, at start: the whole folder
    #expect(await team.synced.count == files)
    #expect(await team.pushMayLookInPlaces)
    let shared = bobFolder.appendingPathComponent(SyncAgent.sharedFolderName)
      .appendingPathComponent(info.name)

    // An edit, said by the monitor, beside a change in another share.
    let handle = try FileHandle(
      forWritingTo: shared.appendingPathComponent("Folder 0/Note 7.txt"))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data("bob's edit\n".utf8))
    try handle.close()
    await team.requestPush(changed: ["\(info.name)/Folder 0/Note 7.txt", "Other share/x.txt"])
    let edit = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(edit.hook) { try await team.pushRequested() }
    // A rename, said as the monitor says one: where it went and where it was.
    try FileManager.default.moveItem(
      at: shared.appendingPathComponent("Folder 0/Note 8.txt"),
      to: shared.appendingPathComponent("Folder 0/Renamed.txt"))
    await team.requestPush(changed: [
      "\(info.name)/Folder 0/Renamed.txt", "\(info.name)/Folder 0/Note 8.txt",
    ])
    let rename = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(rename.hook) { try await team.pushRequested() }
    // A deletion: the participant of a shared folder may delete in it.
    try FileManager.default.removeItem(at: shared.appendingPathComponent("Folder 0/Note 9.txt"))
    await team.requestPush(changed: ["\(info.name)/Folder 0/Note 9.txt"])
    try await team.pushRequested()
    let synced = Dictionary(
      await team.synced.values.map { ($0.path, $0.revision) }, uniquingKeysWith: max)
    return Run(edit: edit, rename: rename, synced: synced)
  }

  @Test("a participant's edit and rename cost the same at 500 shared documents and at 5 000")
  func sharePushFollowsTheChange() async throws {
    let small = try await Self.oneEdit(in: 500)
    let large = try await Self.oneEdit(in: 5_000)
    for run in [small, large] {
      #expect(run.synced["Team/Folder 0/Note 7.txt"].map { $0 > 1 } == true, "the edit was sent")
      #expect(
        run.synced["Team/Folder 0/Renamed.txt"] != nil
          && run.synced["Team/Folder 0/Note 8.txt"] == nil, "the rename was sent")
      #expect(run.synced["Team/Folder 0/Note 9.txt"] == nil, "the deletion was sent")
      #expect(run.synced["Team/Folder 0/Note 10.txt"] != nil)
    }
    #expect(small.synced.count == 499 && large.synced.count == 4_999)
    for call in ["stat", "readdir"] {
      #expect(
        large.edit[call] == small.edit[call],
        "\(call) calls of an edit's push: \(small.edit[call]) at 500, \(large.edit[call]) at 5 000")
      #expect(
        large.rename[call] == small.rename[call],
        "\(call) calls of a rename's push: \(small.rename[call]) at 500, \(large.rename[call]) at 5 000"
      )
    }
    #expect(large.edit["stat"] < 20, "an edit's push: \(large.edit["stat"]) stat calls")
  }
}
