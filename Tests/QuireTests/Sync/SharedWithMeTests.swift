import Foundation
import Quire
import QuireSync
import QuireSyncProtocol
import Testing

/// A participant's devices sync what is shared with its account into "Shared with me": edits
/// flow both ways in the `write` role; in the `read` role a change made on the participant's
/// device is kept in its own drive as "Name (my changes)" and the shared item comes back; a
/// revoked share leaves the device. Real `quire sync run` processes against one server.
@Suite("Shared with me on devices", .timeLimit(.minutes(4)))
struct SharedWithMeTests {
  static let shared = SyncAgent.sharedFolderName + "/Trip.txt"

  /// Alice's device with a synced Trip.txt, and Bob's device syncing. Shares are looked up
  /// only every ten minutes: what the tests see of a share made, changed or stopped arrives by
  /// the server's share events.
  static func devices() async throws -> (SyncServerProcess, SyncDevice, SyncDevice) {
    let (server, a, b) = try aliceAndBob()
    try a.write("plans\n", to: "Trip.txt")
    try a.sync()
    return (server, a, b)
  }

  @Test(
    "a write share reaches the participant's device, edits flow both ways, and unsharing removes it there"
  )
  func writeShare() async throws {
    let (server, a, b) = try await Self.devices()
    let share = try a.quire(["share", a.url("Trip.txt").path, "--with", "bob", "--role", "write"])
    #expect(share.status == 0, "\(share.stderr)")
    // The share arrives, and leaves below, by the server's share events, with no wait asking.
    #expect(await eventually { b.text(Self.shared) == "plans\n" }, "the share reached Bob")

    try a.write("plans\nby train\n", to: "Trip.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.shared) == "plans\nby train\n")
    try b.write("plans\nby train\nBob comes too\n", to: Self.shared)
    try SyncDevice.sync(b, a)
    #expect(a.text("Trip.txt") == "plans\nby train\nBob comes too\n")

    let bob = try await server.client("bob", device: "check", container: "iCloud.net.gacha.quire")
    let own = try await bob.changes(since: 0).entries.map(\.path)
    #expect(own.isEmpty, "Bob's own drive holds nothing of the share: \(own)")

    let stopped = try a.quire(["unshare", a.url("Trip.txt").path, "--with", "bob"])
    #expect(stopped.status == 0, "\(stopped.stderr)")
    #expect(await eventually { !b.exists(Self.shared) }, "the revoked share left Bob's device")
    #expect(a.text("Trip.txt") == "plans\nby train\nBob comes too\n", "the owner keeps it all")
  }

  @Test(
    "in a read share, a change on the participant's device is kept as “Trip (my changes)” in its own drive, and the shared document comes back"
  )
  func readShare() async throws {
    let (server, a, b) = try await Self.devices()
    let share = try a.quire(["share", a.url("Trip.txt").path, "--with", "bob", "--role", "read"])
    #expect(share.status == 0, "\(share.stderr)")
    try b.sync()
    #expect(b.text(Self.shared) == "plans\n", "the share reached Bob")
    let mode = try #require(
      try FileManager.default.attributesOfItem(atPath: b.url(Self.shared).path)[.posixPermissions]
        as? Int)
    #expect(
      mode & 0o222 == 0,
      "a read share's file has no write permission (mode \(String(mode, radix: 8)))")
    #expect(
      await Self.sharing(of: Self.shared, on: b)
        == UbiquitySharing(role: .participant, permissions: .readOnly, owner: "alice"))
    try a.sync()
    #expect(
      await Self.sharing(of: "Trip.txt", on: a)
        == UbiquitySharing(role: .owner, permissions: .readWrite),
      "the owner's device marks the document shared")

    let edit = try b.quire(["edit", b.url(Self.shared).path, "--text", "mine"])
    #expect(edit.status != 0 && edit.stderr.contains("is read-only"), "\(edit.stderr)")

    try b.write("plans\nBob's idea\n", to: Self.shared)  // another program, not the agent
    try b.sync()
    #expect(b.text("Trip (my changes).txt") == "plans\nBob's idea\n", "Bob's change was kept")
    #expect(b.text(Self.shared) == "plans\n", "the shared document came back")
    let bob = try await server.client("bob", device: "check", container: "iCloud.net.gacha.quire")
    #expect(
      try await bob.changes(since: 0).entries.contains {
        $0.path == "Documents/Trip (my changes).txt"
      }, "the copy syncs as Bob's own document")

    try a.write("plans\nby plane\n", to: "Trip.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text(Self.shared) == "plans\nby plane\n", "the owner's edit")
    #expect(a.text("Trip.txt") == "plans\nby plane\n", "Bob's change never reached the owner")
    #expect(b.text("Trip (my changes).txt") == "plans\nBob's idea\n")

    // A safe-save by another program (a new file renamed over it) is kept aside too.
    try Data("plans\nby boat\n".utf8).write(to: b.url(Self.shared), options: .atomic)
    try b.sync()
    #expect(b.text("Trip (my changes 2).txt") == "plans\nby boat\n")
    #expect(b.text(Self.shared) == "plans\nby plane\n")
    #expect(a.text("Trip.txt") == "plans\nby plane\n")
  }

  /// A server, and a device of alice's and one of bob's syncing, whose agents look up shares
  /// only every ten minutes: what they see of a share arrives by the server's share events.
  static func aliceAndBob() throws -> (SyncServerProcess, SyncDevice, SyncDevice) {
    let server = try SyncServerProcess()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server, user: "bob")
    try a.start(["--shares-every", "600"])
    try b.start(["--shares-every", "600"])
    return (server, a, b)
  }

  /// How the item at `relative` on `device` is shared, as its sync status says.
  static func sharing(of relative: String, on device: SyncDevice) async -> UbiquitySharing? {
    let source = SyncStatusSource(
      folder: device.folder, stateFile: device.stateFile, settingsFile: device.settingsFile)
    return await source.statuses()?[relative]?.sharing
  }
}
