import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// Another device deletes a document while this device's user saves it. The agent read the
/// document, found it as last synced, and then moved it to the Trash: a save that came between
/// the reading and the move went to the Trash unsent (found by `scripts/torture sync --seed 6`,
/// "lost: image …", the image in the device's Trash). Modification beats deletion: the save
/// must stay, and reach the other device.
@Suite("A save that races another device's deletion")
struct SavedAsDeletedTests {
  @Test(
    "saved after the agent read it and before the move: it stays here, and the other device gets it back",
    arguments: ["Notes.txt", "Doc.mydoc"])
  func savedBetweenReadAndTrash(name: String) async throws {
    let (server, homes, a, b, text) = try await Self.deletedOnB(name)
    defer { withExtendedLifetime(server) {} }
    let folderA = homes[0].url.appendingPathComponent("Documents")
    let folderB = homes[1].url.appendingPathComponent("Documents")

    // A reads the document as its pull does, finds it as last synced; then its user saves, and
    // only then is the deletion applied.
    let local = try #require(LocalScanner.item(at: name, root: folderA))
    try Disk.write("first line\nsaved on A\n", to: folderA.appendingPathComponent(text))
    let went = try await a.trashForDeletion(local)

    #expect(!went, "the saved document went to the Trash")
    #expect(try Disk.read(folderA.appendingPathComponent(text)) == "first line\nsaved on A\n")
    let trashed = homes[0].url.appendingPathComponent("Trash/files")
    #expect(try Disk.tree(trashed).isEmpty, "nothing is left in the Trash")
    // The save is sent as a modification, which beats the deletion: B gets the document back.
    try await a.pushLocalChanges()
    try await a.pull()
    try await b.pull()
    #expect(try Disk.read(folderB.appendingPathComponent(text)) == "first line\nsaved on A\n")
    #expect(try Disk.read(folderA.appendingPathComponent(text)) == "first line\nsaved on A\n")
  }

  @Test("unchanged since the agent read it: it goes to the Trash")
  func unchangedGoes() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let home = try TemporaryDirectory()
    let a = try await SyncAgent.test("A", in: home.url, server: server)
    let folder = home.url.appendingPathComponent("Documents")
    try Disk.write("first line\n", to: folder.appendingPathComponent("Notes.txt"))
    try await a.pushLocalChanges()
    let local = try #require(LocalScanner.item(at: "Notes.txt", root: folder))
    #expect(try await a.trashForDeletion(local))
    #expect(
      !FileManager.default.fileExists(atPath: folder.appendingPathComponent("Notes.txt").path))
    #expect(
      try Disk.read(home.url.appendingPathComponent("Trash/files/Notes.txt")) == "first line\n")
  }

  @Test(
    "a download that finds the document deleted there keeps an edit made here, and sends it",
    arguments: ["Notes.txt", "Doc.mydoc"])
  func editedWhenTheDownloadFindsItDeleted(name: String) async throws {
    let (server, homes, a, b, text) = try await Self.deletedOnB(name)
    defer { withExtendedLifetime(server) {} }
    let folderA = homes[0].url.appendingPathComponent("Documents")
    let folderB = homes[1].url.appendingPathComponent("Documents")
    let id = try #require(await a.synced.values.first { $0.path == name }?.id)
    let deletion = try #require(
      try await a.client.changes(since: 0).entries.last { $0.item == id && $0.deleted })

    // A's user edits it; then a download of the item (one A had queued) reads the deletion.
    try Disk.write("first line\nedited on A\n", to: folderA.appendingPathComponent(text))
    try await a.download(item: id, revision: deletion.revision, base: await a.synced[id])

    #expect(try Disk.read(folderA.appendingPathComponent(text)) == "first line\nedited on A\n")
    #expect(((try? Disk.tree(homes[0].url.appendingPathComponent("Trash/files"))) ?? []).isEmpty)
    try await a.pushLocalChanges()
    try await b.pull()
    #expect(try Disk.read(folderB.appendingPathComponent(text)) == "first line\nedited on A\n")
  }

  /// Devices A and B of a server, `name` (a flat file, or a package whose text is
  /// `name/text.txt`) written on A and synced to B, then deleted on B and pushed. Returns the
  /// server (kept alive by the test), the two homes, the agents and the text's path.
  static func deletedOnB(_ name: String) async throws -> (
    SyncServerProcess, [TemporaryDirectory], SyncAgent, SyncAgent, String
  ) {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let homes = [try TemporaryDirectory(), try TemporaryDirectory()]
    let a = try await SyncAgent.test("A", in: homes[0].url, server: server)
    let b = try await SyncAgent.test("B", in: homes[1].url, server: server)
    let text = name.hasSuffix(".mydoc") ? name + "/text.txt" : name
    try Disk.write("first line\n", to: homes[0].url.appendingPathComponent("Documents/" + text))
    try await a.pushLocalChanges()
    try await b.pull()
    try FileManager.default.removeItem(
      at: homes[1].url.appendingPathComponent("Documents/" + name))
    try await b.pushLocalChanges()
    return (server, homes, a, b, text)
  }
}
