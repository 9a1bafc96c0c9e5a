import Foundation
import Quire
import QuireSync
import QuireSyncProtocol
import Testing

/// A participant may move a shared document out of "Shared with me" into any folder of the
/// drive, as in iCloud Drive: it stays shared there (edits flow both ways in the `write` role,
/// the owner's arrive in the `read` role), across a restart of the agent, and a revoked share
/// takes it from where it went. A copy that kept its identity is the participant's own. Real
/// `quire sync run` processes against one server.
@Suite("Shared documents moved anywhere on the participant's device", .timeLimit(.minutes(4)))
struct MovedShareTests {
  static let shared = SharedWithMeTests.shared
  static let moved = "Work/Trip.txt"

  @Test(
    "a shared document moved into another folder stays shared there, in either role",
    arguments: [ShareRole.write, .read])
  func movedDocumentStaysShared(role: ShareRole) async throws {
    let (server, a, b) = try await SharedWithMeTests.devices()
    let share = try a.quire([
      "share", a.url("Trip.txt").path, "--with", "bob", "--role", role.rawValue,
    ])
    #expect(share.status == 0, "\(share.stderr)")
    try b.sync()
    #expect(b.text(Self.shared) == "plans\n", "the share reached Bob")
    let bob = try await server.client("bob", device: "check", container: "iCloud.net.gacha.quire")

    try FileManager.default.createDirectory(
      at: b.url("Work"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: b.url(Self.shared), to: b.url(Self.moved))
    try a.write("plans\nby train\n", to: "Trip.txt")
    try SyncDevice.sync(b, a, b)
    #expect(
      b.text(Self.moved) == "plans\nby train\n",
      "the owner's edit reaches the moved document: \(b.text(Self.moved) ?? "none")")
    #expect(!b.exists(Self.shared), "the shared document did not come back in Shared with me")
    let permissions: UbiquitySharing.Permissions = role == .write ? .readWrite : .readOnly
    #expect(
      await SharedWithMeTests.sharing(of: Self.moved, on: b)
        == UbiquitySharing(role: .participant, permissions: permissions, owner: "alice"),
      "its status still says it is Alice's, shared with Bob")

    if role == .write {
      try b.write("plans\nby train\nBob comes too\n", to: Self.moved)
      try SyncDevice.sync(b, a)
      #expect(a.text("Trip.txt") == "plans\nby train\nBob comes too\n")
    }
    let text = try #require(b.text(Self.moved))

    // A copy that kept the identity (cp -a) is Bob's own; the moved one stays the shared one.
    let copy = try Executables.runCommand(
      URL(fileURLWithPath: "/bin/cp"), ["-a", b.url(Self.moved).path, b.url("Trip copy.txt").path])
    #expect(copy.status == 0, "\(copy.stderr)")
    try b.sync()
    #expect(
      try await Self.items(of: bob) == ["Documents/Trip copy.txt"],
      "the copy is Bob's own, and nothing else is")

    // After a restart, the agent still knows where the shared document is.
    b.kill()
    try b.start(["--shares-every", "600"])
    try a.write(text + "at nine\n", to: "Trip.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.moved) == text + "at nine\n")
    #expect(!b.exists(Self.shared))

    // A rename is the owner's to make: the owner's name comes back, in Bob's folder.
    try FileManager.default.moveItem(at: b.url(Self.moved), to: b.url("Work/Plan.txt"))
    try b.sync()
    #expect(
      b.text(Self.moved) == text + "at nine\n" && !b.exists("Work/Plan.txt"),
      "the owner's name came back")
    #expect(!b.exists("Work/Plan (my changes).txt") && !b.exists("Plan (my changes).txt"))
    #expect(a.text("Trip.txt") == text + "at nine\n", "the owner's document is unchanged")
    let own = try await Self.items(of: bob)
    #expect(own == ["Documents/Trip copy.txt"], "Bob's own drive: \(own)")

    let stopped = try a.quire(["unshare", a.url("Trip.txt").path, "--with", "bob"])
    #expect(stopped.status == 0, "\(stopped.stderr)")
    try b.sync()
    #expect(!b.exists(Self.moved), "the revoked share left the moved place")
    #expect(b.text("Trip copy.txt") == text, "Bob's own copy stays")
  }

  @Test(
    "a shared folder moved into another folder stays shared there: nothing of the owner's is deleted, edits flow both ways"
  )
  func movedFolderStaysShared() async throws {
    let (server, a, b) = try await SharedFolderDeviceTests.devices()
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let share = try a.quire(["share", a.url("Projects").path, "--with", "bob", "--role", "write"])
    try #require(share.status == 0, "\(share.stderr)")
    let before = SharedFolderDeviceTests.shared
    try b.sync()
    #expect(b.text(before + "/Notes/Idea.txt") == "an idea\n")
    let bob = try await server.client("bob", device: "check", container: "iCloud.net.gacha.quire")

    try FileManager.default.createDirectory(at: b.url("Work"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: b.url(before), to: b.url("Work/Projects"))
    try a.write("the plan\nrevised\n", to: "Projects/Plan.txt")
    try SyncDevice.sync(b, a, b)
    #expect(
      b.text("Work/Projects/Plan.txt") == "the plan\nrevised\n",
      "the owner's edit reaches the moved folder")
    #expect(a.text("Projects/Notes/Idea.txt") == "an idea\n", "nothing of the owner's was deleted")
    #expect(!b.exists(before), "the folder did not come back in Shared with me")
    try b.write("an idea\nbob's too\n", to: "Work/Projects/Notes/Idea.txt")
    try SyncDevice.sync(b, a)
    #expect(a.text("Projects/Notes/Idea.txt") == "an idea\nbob's too\n")
    try a.write("new\n", to: "Projects/New.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Work/Projects/New.txt") == "new\n", "a new document too")
    let own = try await Self.items(of: bob)
    #expect(own.isEmpty, "Bob's own drive holds nothing of the share: \(own)")

    // After a restart the agent still knows where the folder is.
    b.kill()
    try b.start(["--shares-every", "600"])
    try a.write("after the restart\n", to: "Projects/Later.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Work/Projects/Later.txt") == "after the restart\n")
    #expect(a.exists("Projects/Plan.txt") && a.exists("Projects/Notes/Idea.txt"))
    #expect(try await Self.items(of: bob).isEmpty)

    let stopped = try a.quire(["unshare", a.url("Projects").path, "--with", "bob"])
    #expect(stopped.status == 0, "\(stopped.stderr)")
    try b.sync()
    #expect(!b.exists("Work/Projects"), "the revoked share left the moved place")
    #expect(a.text("Projects/Plan.txt") == "the plan\nrevised\n", "the owner keeps it all")
  }

  /// The paths of the items in `client`'s drive, one per item (its journal has one entry per
  /// revision).
  static func items(of client: SyncClient) async throws -> [String] {
    let entries = try await client.changes(since: 0).entries
    let latest = Dictionary(entries.map { ($0.item, $0) }) { _, later in later }
    return latest.values.filter { !$0.deleted }.map(\.path).sorted()
  }
}
