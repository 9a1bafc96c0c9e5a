import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// A scan lists one folder after another: a document renamed from a folder not yet listed into
/// one already listed is in neither listing. Found by chance (`SharedFolderDeviceTests`, in CI):
/// the owner moved `Projects/New.txt` out of a shared folder while the agent scanned, the
/// agent uploaded the document's deletion, then trashed the moved file when the journal gave
/// that deletion back. Here the scan's miss is made exact: the file is outside the folder
/// during one push.
@Suite("A document the scan missed mid-move")
struct MissedMoveTests {
  @Test(
    "a deletion uploaded for a document the scan missed trashes nothing: the document comes back where it is, with its identity"
  )
  func missedMove() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let folder = home.url.appendingPathComponent("Documents")
    let trashFolder = home.url.appendingPathComponent("Trash")
    try Disk.write("for bob\n", to: folder.appendingPathComponent("Projects/New.txt"))
    let container = "iCloud.net.gacha.quire"
    let signedIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: "A")
    let agent = try SyncAgent(
      settings: SyncSettings(
        server: server.url, user: "alice", device: signedIn.device, token: signedIn.token,
        container: container),
      folder: folder, stateFile: home.url.appendingPathComponent("state.sqlite"),
      trash: Trash(folder: trashFolder))
    try await agent.pushLocalChanges()
    try await agent.pull()
    let check = try await server.client("alice", device: "check", container: container)
    let id = try #require(try await check.changes(since: 0).entries.first?.item)

    // The scan misses it: it is in no folder the agent lists while the push runs.
    let aside = home.url.appendingPathComponent("moving.txt")
    try FileManager.default.moveItem(
      at: folder.appendingPathComponent("Projects/New.txt"), to: aside)
    try await agent.pushLocalChanges()
    let deleted = try await check.changes(since: 0).entries.last
    #expect(
      deleted?.item == id && deleted?.deleted == true, "the missed document's deletion went up")

    // The move ends at the drive's top; the journal gives the deletion back.
    let moved = folder.appendingPathComponent("New.txt")
    try FileManager.default.moveItem(at: aside, to: moved)
    try await agent.pull()
    #expect(FileManager.default.fileExists(atPath: moved.path), "the document was trashed")
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: trashFolder.path))?.isEmpty ?? true)

    // The next push brings the item back where the file is, with the same identity.
    try await agent.pushLocalChanges()
    try await agent.pull()
    let last = try #require(try await check.changes(since: 0).entries.last)
    #expect(last.item == id && !last.deleted && last.path == "Documents/New.txt", "\(last)")
    #expect(try ItemIdentity.of(moved) == id)
    #expect(String(decoding: try Data(contentsOf: moved), as: UTF8.self) == "for bob\n")
    #expect(
      !FileManager.default.fileExists(
        atPath: folder.appendingPathComponent("Projects/New.txt").path))
  }
}
