import AsyncHTTPClient
import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// A WebDAV client's MOVE of a folder is the same folder move a device makes: one commit and
/// one journal entry for the account's devices, whatever the folder holds.
@Suite("WebDAV: a folder's MOVE as one commit")
struct DAVFolderMoveTests {
  @Test(
    "MOVE of a folder to a new name is one journal entry; onto an existing folder it still moves every item"
  )
  func moveFolder() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }
    let alice = try await server.client("alice", container: "iCloud.net.gacha.quire")
    for path in ["Trip/a.txt", "Trip/Day 1/b.txt", "Other/c.txt"] {
      _ = try await alice.commit(
        SyncTestSupport.commit(
          UUID().uuidString, path: "Documents/" + path, base: nil, kind: .file,
          upserted: try await SyncTestSupport.upload(["": SyncTestSupport.bytes(path)], with: alice)
        ))
    }
    let made = try Executables.run(
      "quire", ["server", "app-password", "alice", "--label", "Files"] + server.dataArguments)
    let password = try #require(made.stdout.split(separator: "\n").last, "\(made.stderr)")
    let signIn = [
      ("Authorization", "Basic " + Data("alice:\(password)".utf8).base64EncodedString())
    ]
    let dav = server.url.absoluteString + "/dav/"
    let cursor = try await alice.changes(since: 0).cursor
    let moved = try await SyncTestSupport.raw(
      .RAW(value: "MOVE"), dav + "Trip/",
      headers: signIn + [("Destination", dav + "Trip%202026/")])
    #expect(moved.status == 201)
    let entries = try await alice.changes(since: cursor).entries
    #expect(entries.count == 1, "\(entries.map(\.path))")
    #expect(
      entries.first?.folderMove
        == FolderMove(from: "Documents/Trip", to: "Documents/Trip 2026"))
    #expect(
      try await SyncTestSupport.raw(.GET, dav + "Trip%202026/Day%201/b.txt", headers: signIn)
        .status == 200)
    #expect(try await SyncTestSupport.raw(.GET, dav + "Trip/a.txt", headers: signIn).status == 404)

    // Onto a folder that exists (Overwrite: T): item by item, as before.
    let over = try await SyncTestSupport.raw(
      .RAW(value: "MOVE"), dav + "Trip%202026/", headers: signIn + [("Destination", dav + "Other/")]
    )
    #expect(over.status == 204)
    #expect(
      try await SyncTestSupport.raw(.GET, dav + "Other/Day%201/b.txt", headers: signIn).status
        == 200)
    #expect(try await SyncTestSupport.raw(.GET, dav + "Other/c.txt", headers: signIn).status == 404)
  }
}
