import Foundation
import Quire
import QuireSync
import QuireSyncProtocol
import Testing

/// A shared folder on the participant's devices: `quire share FOLDER` brings the folder's
/// documents into "Shared with me/FOLDER" on the participant's device, documents added, moved in
/// or out on either side follow, and unsharing takes the folder away. Real `quire sync run`
/// processes against one server.
@Suite("Shared folders on devices", .timeLimit(.minutes(4)))
struct SharedFolderDeviceTests {
  static let shared = SyncAgent.sharedFolderName + "/Projects"

  /// Alice's device with Projects/Plan.txt, Projects/Notes/Idea.txt and Private.txt synced, and
  /// Bob's device syncing; shares are heard by push only (looked up every ten minutes).
  static func devices() async throws -> (SyncServerProcess, SyncDevice, SyncDevice) {
    let (server, a, b) = try SharedWithMeTests.aliceAndBob()
    try FileManager.default.createDirectory(
      at: a.url("Projects/Notes"), withIntermediateDirectories: true)
    try a.write("the plan\n", to: "Projects/Plan.txt")
    try a.write("an idea\n", to: "Projects/Notes/Idea.txt")
    try a.write("alice's own\n", to: "Private.txt")
    try a.sync()
    return (server, a, b)
  }

  @Test(
    "a shared folder reaches the participant's device; documents added, edited, moved and deleted on either side follow, and so does a rename of the folder; unsharing takes it away"
  )
  func writeFolder() async throws {
    let (server, a, b) = try await Self.devices()
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let share = try a.quire([
      "share", a.url("Projects").path, "--with", "bob", "--role", "write",
    ])
    try #require(share.status == 0, "\(share.stderr)")
    #expect(share.stdout.contains("Shared the folder"), "\(share.stdout)")
    #expect(
      try a.quire(["share", a.url("Projects").path]).stdout.contains("bob: can make changes"))
    #expect(
      try b.quire(["shared"]).stdout.contains("Projects/ (a folder) from alice (can make changes)"))
    // The share arrives by the server's share event, with no wait asking for it.
    #expect(await eventually { b.text(Self.shared + "/Plan.txt") == "the plan\n" })
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.shared + "/Notes/Idea.txt") == "an idea\n")
    #expect(!b.exists(SyncAgent.sharedFolderName + "/Private.txt"), "only the folder is shared")
    #expect(
      await SharedWithMeTests.sharing(of: Self.shared + "/Plan.txt", on: b)
        == UbiquitySharing(role: .participant, permissions: .readWrite, owner: "alice"))
    #expect(
      await SharedWithMeTests.sharing(of: "Projects/Plan.txt", on: a)
        == UbiquitySharing(role: .owner, permissions: .readWrite),
      "the owner's device marks the folder's documents shared")

    // Alice adds one; Bob adds one and edits one: each reaches the other side.
    // From here each change is checked once both devices say they are in sync.
    try a.write("for bob\n", to: "Projects/New.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.shared + "/New.txt") == "for bob\n")
    try b.write("bob's part\n", to: Self.shared + "/From Bob.txt")
    try SyncDevice.sync(b, a)
    #expect(a.text("Projects/From Bob.txt") == "bob's part\n")
    try b.write("the plan\nrevised by bob\n", to: Self.shared + "/Plan.txt")
    try SyncDevice.sync(b, a)
    #expect(a.text("Projects/Plan.txt") == "the plan\nrevised by bob\n")

    // Moved out of the folder on alice's side: it leaves bob's; moved in: it arrives.
    try FileManager.default.moveItem(at: a.url("Projects/New.txt"), to: a.url("New.txt"))
    try SyncDevice.sync(a, b)
    #expect(!b.exists(Self.shared + "/New.txt"), "moved out, it left")
    try FileManager.default.moveItem(at: a.url("Private.txt"), to: a.url("Projects/Private.txt"))
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.shared + "/Private.txt") == "alice's own\n")

    // Alice renames a folder inside the shared one, and moves a folder of hers into it: each
    // is one commit now, and bob's copy follows, nothing of it sent to his trash on the way.
    try a.write("a draft\n", to: "Drafts/One.txt")
    try a.sync()
    let bobsTrash = b.home.url.appendingPathComponent("data/Trash/files")
    let inTrash = {
      Set((try? FileManager.default.contentsOfDirectory(atPath: bobsTrash.path)) ?? [])
    }
    let trashedBefore = inTrash()
    try FileManager.default.moveItem(at: a.url("Projects/Notes"), to: a.url("Projects/Ideas"))
    try FileManager.default.moveItem(at: a.url("Drafts"), to: a.url("Projects/Drafts"))
    try SyncDevice.sync(a, b)
    #expect(
      b.text(Self.shared + "/Ideas/Idea.txt") == "an idea\n"
        && b.text(Self.shared + "/Drafts/One.txt") == "a draft\n"
        && !b.exists(Self.shared + "/Notes"),
      "bob's copy: \(FileManager.default.subpaths(atPath: b.url(Self.shared).path) ?? [])")
    #expect(inTrash() == trashedBefore, "documents that left bob's device on the way")

    // Bob deletes a document in the folder: it is deleted for alice too.
    try FileManager.default.removeItem(at: b.url(Self.shared + "/From Bob.txt"))
    try SyncDevice.sync(b, a)
    #expect(!a.exists("Projects/From Bob.txt"), "bob's deletion reached alice")

    // Alice renames the shared folder: the share follows it, bob's documents move with it, and
    // the old folder, left empty, goes.
    try FileManager.default.moveItem(at: a.url("Projects"), to: a.url("Work 2026"))
    let renamed = SyncAgent.sharedFolderName + "/Work 2026"
    try SyncDevice.sync(a, b)
    #expect(
      b.text(renamed + "/Plan.txt") == "the plan\nrevised by bob\n"
        && b.text(renamed + "/Ideas/Idea.txt") == "an idea\n"
        && !b.exists(Self.shared),
      "the renamed folder on bob's device: \(FileManager.default.subpaths(atPath: b.url(SyncAgent.sharedFolderName).path) ?? [])"
    )
    try b.write("after the rename\n", to: renamed + "/Later.txt")
    try SyncDevice.sync(b, a)
    #expect(a.text("Work 2026/Later.txt") == "after the rename\n")

    let stopped = try a.quire(["unshare", a.url("Work 2026").path, "--with", "bob"])
    #expect(stopped.status == 0, "\(stopped.stderr)")
    try b.sync()
    #expect(!b.exists(renamed), "the folder left bob's device")
    #expect(a.text("Work 2026/Plan.txt") == "the plan\nrevised by bob\n", "the owner keeps it all")
    if a.text("New.txt") != "for bob\n" {
      // What happened to it, for the failure's message: alice's folder and the journal.
      let owner = try await server.client(
        "alice", device: "journal", container: "iCloud.net.gacha.quire")
      let journal = (try? await owner.changes(since: 0))?.entries.map {
        "\($0.sequence) \($0.item.prefix(8)) r\($0.revision) base \($0.base ?? 0) \($0.path)"
          + "\($0.deleted ? " deleted" : "")\($0.conflict ? " conflict" : "") by \($0.device)"
      }
      Issue.record(
        """
        New.txt left alice's drive: \(FileManager.default.subpaths(atPath: a.folder.path) ?? [])
        \(journal?.joined(separator: "\n") ?? "no journal")
        """)
    }
  }

  @Test(
    "a shared folder of 600 documents renamed by the owner moves on the participant's device whole: no document leaves it meanwhile"
  )
  func renameLargeFolder() async throws {
    let (server, a, b) = try SharedWithMeTests.aliceAndBob()
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let count = 600  // more than an upload batch (256), so the rename took several commits
    try FileManager.default.createDirectory(
      at: a.url("Album"), withIntermediateDirectories: true)
    for index in 0..<count { try a.write("page \(index)\n", to: "Album/Page \(index).txt") }
    let files = { (device: SyncDevice, folder: String) in  // visible ones: what a user sees
      (try? FileManager.default.contentsOfDirectory(atPath: device.url(folder).path))?
        .filter { !$0.hasPrefix(".") }.count ?? 0
    }
    try a.sync()
    let share = try a.quire(["share", a.url("Album").path, "--with", "bob", "--role", "write"])
    try #require(share.status == 0, "\(share.stderr)")
    let before = SyncAgent.sharedFolderName + "/Album"
    try b.sync()
    #expect(files(b, before) == count, "the folder reached bob")

    try FileManager.default.moveItem(at: a.url("Album"), to: a.url("Album 2026"))
    let after = SyncAgent.sharedFolderName + "/Album 2026"
    try SyncDevice.sync(a, b)
    #expect(
      files(b, after) == count && files(b, before) == 0,
      "bob's copy moved: \(files(b, after)) of \(count), left in the old folder: \(files(b, before))"
    )
    let trash = b.home.url.appendingPathComponent("data/Trash/files")
    let trashed = (try? FileManager.default.contentsOfDirectory(atPath: trash.path)) ?? []
    #expect(trashed.isEmpty, "documents that left bob's device meanwhile: \(trashed.prefix(5))")
    #expect(b.text(after + "/Page 7.txt") == "page 7\n")
  }

  @Test(
    "in a read-only shared folder, an edit and a new document are kept in the participant's own drive and the folder stays as the owner has it"
  )
  func readFolder() async throws {
    let (server, a, b) = try await Self.devices()
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let share = try a.quire(["share", a.url("Projects").path, "--with", "bob"])
    try #require(share.status == 0, "\(share.stderr)")
    try b.sync()
    #expect(b.text(Self.shared + "/Plan.txt") == "the plan\n")

    try b.write("the plan\nbob's idea\n", to: Self.shared + "/Plan.txt")
    try b.sync()
    #expect(
      b.text("Plan (my changes).txt") == "the plan\nbob's idea\n",
      "bob's edit was kept in his drive")
    #expect(b.text(Self.shared + "/Plan.txt") == "the plan\n")
    try b.write("mine\n", to: Self.shared + "/Mine.txt")
    try b.sync()
    #expect(
      b.text("Mine (my changes).txt") == "mine\n",
      "a new document in a read-only folder is bob's own")
    #expect(!b.exists(Self.shared + "/Mine.txt"))
    try FileManager.default.removeItem(at: b.url(Self.shared + "/Notes/Idea.txt"))
    try b.sync()
    #expect(
      b.text(Self.shared + "/Notes/Idea.txt") == "an idea\n",
      "a deletion in a read-only folder is undone")
    #expect(a.text("Projects/Plan.txt") == "the plan\n" && !a.exists("Projects/Mine.txt"))
  }
}
