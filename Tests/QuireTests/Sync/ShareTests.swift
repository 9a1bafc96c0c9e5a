import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// Sharing an item with another account: the participant reads it (and writes it, in the
/// `write` role) through its share and nothing else of the owner's; read-only is enforced by the
/// server; a revoked share is gone at once.
@Suite("Shares between accounts", .timeLimit(.minutes(4)))
struct ShareTests {
  @Test(
    "the participant's and the owner's share events announce a share made, changed and stopped; other accounts hear nothing",
    arguments: ServerBackend.allCases)
  func shareEvents(backend: ServerBackend) async throws {
    let (server, alice, bob, carol) = try await Self.threeAccounts(backend)
    _ = try await alice.commit(
      S.commit(
        "note-1", path: "Documents/Trip.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("shared text")], with: alice)))
    let heard = (alice: Collector<String>(), bob: Collector<String>(), carol: Collector<String>())
    var listening: [Task<Void, Never>] = []
    for (client, collector) in [(alice, heard.alice), (bob, heard.bob), (carol, heard.carol)] {
      listening.append(
        Task {
          do {
            for try await _ in client.shareEvents() { await collector.append("shares") }
          } catch {
            await collector.append("ended: \(error)")
          }
        })
    }
    defer { for task in listening { task.cancel() } }
    // One event as each stream opens.
    for collector in [heard.alice, heard.bob, heard.carol] {
      #expect(await collector.wait(seconds: 60) { $0.count == 1 } == ["shares"])
    }
    _ = try await alice.share(item: "note-1", with: "bob", role: .read)
    #expect(await heard.bob.wait(seconds: 60) { $0.count == 2 }.count == 2, "bob heard the share")
    #expect(await heard.alice.wait(seconds: 60) { $0.count == 2 }.count == 2, "so did alice")
    _ = try await alice.share(item: "note-1", with: "bob", role: .write)
    #expect(await heard.bob.wait(seconds: 60) { $0.count == 3 }.count == 3, "the new role")
    try await alice.unshare(item: "note-1", with: "bob")
    #expect(
      await heard.bob.wait(seconds: 60) { $0.count == 4 } == Array(repeating: "shares", count: 4))
    // Carol's stream was woken by none of it (the server wakes an account's own key only).
    #expect(await heard.carol.values == ["shares"], "carol heard nothing")
    await Self.expect(.unauthorized) {
      let stranger = SyncClient(server: server.url, token: "not-a-token", container: "x")
      for try await _ in stranger.shareEvents() {}
    }
  }

  @Test(
    "a read-only participant sees only the shared item and can change nothing; other accounts see nothing",
    arguments: ServerBackend.allCases)
  func readOnlyShare(backend: ServerBackend) async throws {
    let (server, alice, bob, carol) = try await Self.threeAccounts(backend)
    let note = try await alice.commit(
      S.commit(
        "note-1", path: "Documents/Private/Trip.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("shared text")], with: alice)))
    let secret = try await S.upload(["": S.bytes("alice's secret")], with: alice)
    _ = try await alice.commit(
      S.commit("secret-1", path: "Documents/Secret.txt", base: nil, kind: .file, upserted: secret))

    // Only the owner shares: another account guessing the item's identity is told it is not there.
    await Self.expect(.notFound) {
      _ = try await bob.share(item: "note-1", with: "carol", role: .write)
    }
    await Self.expect(.notFound) { _ = try await bob.shares(of: "note-1") }
    await Self.expect(.notFound) {
      _ = try await alice.share(item: "note-1", with: "nobody", role: .read)
    }
    await Self.expect(.forbidden) {
      _ = try await alice.share(item: "note-1", with: "alice", role: .read)
    }

    let share = try await alice.share(item: "note-1", with: "bob", role: .read)
    #expect(share.owner == "alice" && share.user == "bob" && share.role == .read)
    #expect(share.name == "Trip.txt" && share.kind == .file)
    #expect(try await alice.shares(of: "note-1") == [share])
    #expect(try await bob.sharedWithMe() == [share])
    #expect(try await carol.sharedWithMe().isEmpty)

    // Bob reads the item, at its name (not alice's folders), and nothing else of alice's.
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let entries = try await shared.changes(since: 0).entries
    #expect(entries.map(\.item) == ["note-1"])
    #expect(entries.map(\.path) == ["Documents/Trip.txt"])
    let manifest = try await shared.manifest(item: "note-1", revision: note.revision)
    #expect(manifest.path == "Documents/Trip.txt")
    let hashes = manifest.change.upserted.flatMap { $0.chunks.map(\.hash) }
    #expect(try await shared.fetchChunks(hashes).values.flatMap { $0 } == S.bytes("shared text"))
    await Self.expect(.notFound) { _ = try await shared.fetchChunks(secret[0].chunks.map(\.hash)) }
    let secretRevision = try await alice.changes(since: 0).entries.last!.revision
    await Self.expect(.notFound) {
      _ = try await shared.manifest(item: "secret-1", revision: secretRevision)
    }
    // Bob's token on alice's container identifier is bob's own container: none of alice's items.
    #expect(try await bob.changes(since: 0).entries.isEmpty)
    // Carol holding bob's share identity gets what a share that never existed gets.
    let stolen = SyncClient(server: server.url, token: carol.token, share: share.id)
    await Self.expect(.notFound) { _ = try await stolen.changes(since: 0) }
    await Self.expect(.notFound) { _ = try await stolen.fetchChunks(hashes) }

    // Read-only: every write is 403 and changes nothing.
    let before = try await alice.changes(since: 0).entries
    await Self.expect(.forbidden) { try await shared.upload([(hashes[0], S.bytes("shared text"))]) }
    await Self.expect(.forbidden) { _ = try await shared.missingChunks(hashes) }
    await Self.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit(
          "note-1", path: "Documents/Trip.txt", base: note.revision, kind: .file,
          upserted: manifest.change.upserted))
    }
    let status = try await S.raw(
      .POST, server.url.absoluteString + "/v1/shares/\(share.id)/commits", token: bob.token,
      body: S.bytes("{}"))
    #expect(status.status == 403 || status.status == 400)
    #expect(try await alice.changes(since: 0).entries == before)

    // Revoked: gone for bob at once.
    try await alice.unshare(item: "note-1", with: "bob")
    #expect(try await bob.sharedWithMe().isEmpty)
    #expect(try await alice.shares(of: "note-1").isEmpty)
    await Self.expect(.notFound) { _ = try await shared.changes(since: 0) }
    await Self.expect(.notFound) { _ = try await shared.fetchChunks(hashes) }
    await Self.expect(.notFound) { try await alice.unshare(item: "note-1", with: "bob") }
  }

  @Test(
    "a read-write participant's edits reach the owner at once, keep the owner's name, and touch no other item",
    arguments: ServerBackend.allCases)
  func readWriteShare(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let alice = try await server.client("alice")
    let bob = try await server.client("bob")
    let first = try await alice.commit(
      S.commit(
        "trip-1", path: "Documents/Plans/Trip.mydoc", base: nil,
        upserted: try await S.upload(
          ["text.txt": S.bytes("day one"), "image.png": S.random(3000, seed: 1)], with: alice)))
    let other = try await S.upload(["text.txt": S.bytes("not shared")], with: alice)
    _ = try await alice.commit(
      S.commit("other-1", path: "Documents/Other.mydoc", base: nil, upserted: other))
    _ = try await alice.share(item: "trip-1", with: "bob", role: .read)
    let share = try await alice.share(item: "trip-1", with: "bob", role: .write)
    #expect(try await bob.sharedWithMe().map(\.role) == [.write], "sharing again changed the role")

    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let heardByAlice = Collector<ChangeEntry>()
    let following = Task {
      for try await entry in alice.events(since: try await alice.changes(since: 0).cursor) {
        await heardByAlice.append(entry)
      }
    }
    defer { following.cancel() }
    let heardByBob = Collector<ChangeEntry>()
    let bobFollowing = Task {
      for try await entry in shared.events(since: 0) { await heardByBob.append(entry) }
    }
    defer { bobFollowing.cancel() }
    #expect(await heardByBob.wait { !$0.isEmpty }.map(\.item) == ["trip-1"])

    // Bob's edit: only the changed member, uploaded through the share; a rename is not his.
    let edit = try await S.upload(["text.txt": S.bytes("day one, and day two")], with: shared)
    let answer = try await shared.commit(
      S.commit(
        "trip-1", path: "Documents/Renamed by Bob.mydoc", base: first.revision, upserted: edit))
    #expect(answer.status == .current)
    #expect(answer.path == "Documents/Trip.mydoc")
    let heard = await heardByAlice.wait { $0.contains { $0.revision == answer.revision } }
    #expect(heard.last?.path == "Documents/Plans/Trip.mydoc", "the owner's name and folder stay")
    let manifest = try await alice.manifest(item: "trip-1", revision: answer.revision)
    let text = manifest.change.upserted.first { $0.path == "text.txt" }!
    #expect(
      try await alice.fetchChunks(text.chunks.map(\.hash)).values.flatMap { $0 }
        == S.bytes("day one, and day two"))
    #expect(manifest.change.upserted.contains { $0.path == "image.png" }, "the image is kept")

    // Bob's own stream hears his commit and none of alice's other items.
    _ = try await alice.commit(
      S.commit(
        "other-1", path: "Documents/Other.mydoc", base: nil,
        upserted: try await S.upload(["text.txt": S.bytes("still not shared")], with: alice)))
    let bobHeard = await heardByBob.wait { $0.contains { $0.revision == answer.revision } }
    #expect(Set(bobHeard.map(\.item)) == ["trip-1"])

    // Not his to do: delete the item, write another item, or name chunks he did not upload.
    await Self.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit("trip-1", path: "Documents/Trip.mydoc", base: answer.revision, deleted: true))
    }
    await Self.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit("other-1", path: "Documents/Other.mydoc", base: nil, upserted: edit))
    }
    await Self.expect(.missingChunks) {
      _ = try await shared.commit(
        S.commit("trip-1", path: "Documents/Trip.mydoc", base: answer.revision, upserted: other))
    }
    #expect(
      try await shared.missingChunks(other[0].chunks.map(\.hash)) == other[0].chunks.map(\.hash),
      "the share does not tell whether the owner holds a chunk")
    let live = try await alice.changes(since: 0).entries.filter { $0.item == "trip-1" }
    #expect(live.last?.revision == answer.revision, "nothing refused was committed")
  }

  @Test(
    "quire share --with shares a synced document, quire share lists who has it, quire shared shows it to the participant, quire unshare --with stops it"
  )
  func shareCommands() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let bob = try SyncDevice("B", server: server, user: "bob")
    try a.start()
    try a.write("plans", to: "Trip.txt")
    let path = a.url("Trip.txt").path
    let owner = try await server.client(
      "alice", device: "check", container: "iCloud.net.gacha.quire")
    let heard = Collector<ChangeEntry>()
    let following = Task {
      for try await entry in owner.events(since: 0) { await heard.append(entry) }
    }
    defer { following.cancel() }
    #expect(
      await heard.wait(seconds: 120) { $0.contains { $0.path == "Documents/Trip.txt" } }.count > 0,
      "the document was synced")
    #expect(try bob.quire(["shared"]).stdout.contains("Nothing is shared with you."))

    let shared = try a.quire(["share", path, "--with", "bob", "--role", "write"])
    #expect(shared.status == 0, "\(shared.stderr)")
    #expect(shared.stdout.contains("with bob (can make changes)"), "\(shared.stdout)")
    #expect(try a.quire(["share", path]).stdout.contains("bob: can make changes"))
    #expect(try bob.quire(["shared"]).stdout.contains("Trip.txt from alice (can make changes)"))

    let wrongRole = try a.quire(["share", path, "--with", "bob", "--role", "owner"])
    #expect(
      wrongRole.status != 0 && wrongRole.stderr.contains("read or write"), "\(wrongRole.stderr)")
    let nobody = try a.quire(["share", path, "--with", "nobody"])
    #expect(
      nobody.status != 0 && nobody.stderr.contains("There is no account “nobody”"),
      "\(nobody.stderr)")

    let stopped = try a.quire(["unshare", path, "--with", "bob"])
    #expect(stopped.status == 0, "\(stopped.stderr)")
    #expect(try bob.quire(["shared"]).stdout.contains("Nothing is shared with you."))
    #expect(try a.quire(["share", path]).stdout.contains("Not shared."))
  }

  /// Expects `body` to fail with a ``SyncError`` of `code`.
  /// A server on `backend` with the accounts alice, bob and carol, and a device of each.
  static func threeAccounts(_ backend: ServerBackend) async throws -> (
    SyncServerProcess, SyncClient, SyncClient, SyncClient
  ) {
    let server = try await SyncServerProcess.started(
      backend: backend,
      users: ["alice": "alice-password", "bob": "bob-password", "carol": "carol-password"])
    return (
      server, try await server.client("alice"), try await server.client("bob"),
      try await server.client("carol")
    )
  }

  static func expect(
    _ code: SyncError.Code, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
  ) async {
    do {
      try await body()
      Issue.record("expected \(code), but it succeeded", sourceLocation: sourceLocation)
    } catch {
      #expect((error as? SyncError)?.code == code, "\(error)", sourceLocation: sourceLocation)
    }
  }
}
