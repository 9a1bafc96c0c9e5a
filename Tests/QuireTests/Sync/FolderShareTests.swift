import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// Sharing a folder: the participant reaches every item under it, now and later, at the
/// folder's name, and nothing else of the owner's; items moved in appear, items moved out leave;
/// in the `write` role the participant adds, edits, moves and deletes documents inside it, and
/// nothing outside it.
@Suite("Folder shares between accounts", .timeLimit(.minutes(4)))
struct FolderShareTests {
  @Test(
    "a folder share gives the folder's items, now and later, and nothing else; items moved out leave",
    arguments: ServerBackend.allCases)
  func folderContents(backend: ServerBackend) async throws {
    let (server, alice, bob, carol) = try await ShareTests.threeAccounts(backend)
    let plan = try await alice.commit(
      S.commit(
        "plan-1", path: "Documents/Projects/Plan.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("the plan")], with: alice)))
    _ = try await alice.commit(
      S.commit(
        "idea-1", path: "Documents/Projects/Notes/Idea.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("an idea")], with: alice)))
    let secret = try await S.upload(["": S.bytes("alice's secret")], with: alice)
    let private1 = try await alice.commit(
      S.commit(
        "private-1", path: "Documents/Projects2/Private.txt", base: nil, kind: .file,
        upserted: secret))

    // Only a folder of the drive with documents in it; only another account.
    await ShareTests.expect(.notFound) {
      _ = try await alice.share(folder: "Empty", with: "bob", role: .read)
    }
    await ShareTests.expect(.invalidPath) {
      _ = try await alice.share(folder: "../Projects", with: "bob", role: .read)
    }
    await ShareTests.expect(.malformed) {
      _ = try await alice.share(folder: "", with: "bob", role: .read)
    }
    await ShareTests.expect(.forbidden) {
      _ = try await alice.share(folder: "Projects", with: "alice", role: .read)
    }
    // Bob cannot share alice's folder: his own container has no such folder.
    await ShareTests.expect(.notFound) {
      _ = try await bob.share(folder: "Projects", with: "carol", role: .read)
    }

    let share = try await alice.share(folder: "Projects", with: "bob", role: .read)
    #expect(share.isFolder && share.name == "Projects" && share.folder == "Projects")
    #expect(try await alice.sharesInContainer() == [share])
    let seen = try await bob.sharedWithMe()
    #expect(seen.map(\.id) == [share.id] && seen[0].isFolder && seen[0].folder == nil)
    #expect(try await carol.sharedWithMe().isEmpty)

    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let entries = try await shared.changes(since: 0).entries
    #expect(
      entries.map(\.path) == ["Documents/Projects/Plan.txt", "Documents/Projects/Notes/Idea.txt"])
    let manifest = try await shared.manifest(item: "plan-1", revision: plan.revision)
    #expect(manifest.path == "Documents/Projects/Plan.txt")
    let hashes = manifest.change.upserted.flatMap { $0.chunks.map(\.hash) }
    #expect(try await shared.fetchChunks(hashes).values.flatMap { $0 } == S.bytes("the plan"))
    // "Projects2" is not "Projects": its item, manifest and chunks stay alice's.
    await ShareTests.expect(.notFound) {
      _ = try await shared.manifest(item: "private-1", revision: private1.revision)
    }
    await ShareTests.expect(.notFound) {
      _ = try await shared.fetchChunks(secret[0].chunks.map(\.hash))
    }
    let stolen = SyncClient(server: server.url, token: carol.token, share: share.id)
    await ShareTests.expect(.notFound) { _ = try await stolen.changes(since: 0) }

    // Moved in: it appears; moved out: it leaves, as a deletion at its path inside.
    let cursor = try await shared.changes(since: 0).cursor
    let movedIn = try await alice.commit(
      S.commit(
        "private-1", path: "Documents/Projects/Private.txt", base: private1.revision,
        kind: .file))
    let movedOut = try await alice.commit(
      S.commit("plan-1", path: "Documents/Plan.txt", base: plan.revision, kind: .file))
    let later = try await shared.changes(since: cursor).entries
    #expect(later.map(\.item) == ["private-1", "plan-1"])
    #expect(later[0].path == "Documents/Projects/Private.txt" && !later[0].deleted)
    #expect(later[1].path == "Documents/Projects/Plan.txt" && later[1].deleted)
    #expect(
      try await shared.manifest(item: "private-1", revision: movedIn.revision).path
        == "Documents/Projects/Private.txt")
    await ShareTests.expect(.notFound) {
      _ = try await shared.manifest(item: "plan-1", revision: movedOut.revision)
    }

    // Read-only: no writes at all.
    await ShareTests.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit(
          "new-1", path: "Documents/Projects/New.txt", base: nil, kind: .file,
          upserted: manifest.change.upserted))
    }

    // Stopped by its id: only the owner can, and then it is gone for bob.
    await ShareTests.expect(.notFound) { try await bob.unshare(share: share.id) }
    try await alice.unshare(share: share.id)
    #expect(try await bob.sharedWithMe().isEmpty)
    await ShareTests.expect(.notFound) { _ = try await shared.changes(since: 0) }
    await ShareTests.expect(.notFound) { try await alice.unshare(share: share.id) }
  }

  @Test(
    "a read-write participant adds, edits, moves and deletes documents inside the folder, and nothing outside it",
    arguments: ServerBackend.allCases)
  func readWriteFolder(backend: ServerBackend) async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(backend)
    let plan = try await alice.commit(
      S.commit(
        "plan-1", path: "Documents/Projects/Plan.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("the plan")], with: alice)))
    let other = try await alice.commit(
      S.commit(
        "other-1", path: "Documents/Other.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("not shared")], with: alice)))
    let share = try await alice.share(folder: "Projects", with: "bob", role: .write)
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)

    // A new document, uploaded through the share: it lands in alice's folder.
    let added = try await shared.commit(
      S.commit(
        "bob-1", path: "Documents/Projects/From Bob.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("bob's part")], with: shared)))
    #expect(added.status == .current && added.path == "Documents/Projects/From Bob.txt")
    // An edit, and a move within the folder.
    let edited = try await shared.commit(
      S.commit(
        "plan-1", path: "Documents/Projects/Notes/Plan.txt", base: plan.revision, kind: .file,
        upserted: try await S.upload(["": S.bytes("the plan, revised")], with: shared)))
    #expect(edited.path == "Documents/Projects/Notes/Plan.txt")
    let owner = try await alice.changes(since: 0).entries
    #expect(owner.contains { $0.item == "bob-1" && $0.path == "Documents/Projects/From Bob.txt" })
    #expect(owner.last { $0.item == "plan-1" }?.path == "Documents/Projects/Notes/Plan.txt")

    // Outside the folder: out of reach, whatever the path or the identity says.
    let before = try await alice.changes(since: 0).entries
    await ShareTests.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit("plan-1", path: "Documents/Elsewhere/Plan.txt", base: edited.revision, kind: .file)
      )
    }
    await ShareTests.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit("bob-2", path: "Documents/Escape.txt", base: nil, kind: .file))
    }
    await ShareTests.expect(.invalidPath) {
      _ = try await shared.commit(
        S.commit("bob-3", path: "Documents/Projects/../Escape.txt", base: nil, kind: .file))
    }
    await ShareTests.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit(
          "other-1", path: "Documents/Projects/Other.txt", base: other.revision, kind: .file))
    }
    await ShareTests.expect(.forbidden) {
      _ = try await shared.commit(
        S.commit(
          "other-1", path: "Documents/Projects/Other.txt", base: other.revision, kind: .file,
          deleted: true))
    }
    #expect(try await alice.changes(since: 0).entries == before, "nothing refused was committed")

    // A deletion inside the folder is the participant's to make; the owner keeps its versions.
    let deleted = try await shared.commit(
      S.commit(
        "bob-1", path: "Documents/Projects/From Bob.txt", base: added.revision, kind: .file,
        deleted: true))
    #expect(deleted.status == .current)
    #expect(try await alice.changes(since: 0).entries.last { $0.item == "bob-1" }?.deleted == true)
  }

  @Test(
    "a shared folder the owner renames keeps its share under the new name; a folder emptied otherwise does not",
    arguments: ServerBackend.allCases)
  func renamedFolder(backend: ServerBackend) async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(backend)
    var revisions: [String: Int64] = [:]
    for (item, path) in [
      ("plan-1", "Projects/Plan.txt"), ("idea-1", "Projects/Notes/Idea.txt"),
      ("list-1", "Lists/Groceries.txt"), ("list-2", "Lists/Books.txt"),
    ] {
      revisions[item] =
        try await alice.commit(
          S.commit(
            item, path: "Documents/" + path, base: nil, kind: .file,
            upserted: try await S.upload(["": S.bytes(path)], with: alice))
        ).revision
    }
    let projects = try await alice.share(folder: "Projects", with: "bob", role: .write)
    let lists = try await alice.share(folder: "Lists", with: "bob", role: .read)
    let shared = SyncClient(server: server.url, token: bob.token, share: projects.id)
    let cursor = try await shared.changes(since: 0).cursor

    // The owner's device renames Projects to Work/Projects 2026: one batch of moves.
    _ = try await alice.commit(batch: [
      S.commit(
        "plan-1", path: "Documents/Work/Projects 2026/Plan.txt", base: revisions["plan-1"],
        kind: .file),
      S.commit(
        "idea-1", path: "Documents/Work/Projects 2026/Notes/Idea.txt", base: revisions["idea-1"],
        kind: .file),
    ])
    let moved = try await alice.sharesInContainer().first { $0.id == projects.id }
    #expect(moved?.folder == "Work/Projects 2026" && moved?.name == "Projects 2026")
    #expect(try await bob.sharedWithMe().first { $0.id == projects.id }?.name == "Projects 2026")
    let later = try await shared.changes(since: cursor).entries
    #expect(
      later.map(\.path) == [
        "Documents/Projects 2026/Plan.txt", "Documents/Projects 2026/Notes/Idea.txt",
      ])
    #expect(later.allSatisfy { !$0.deleted }, "the documents stay shared, under the new name")

    // Lists emptied into two places: not a rename; the share stays where it was.
    _ = try await alice.commit(batch: [
      S.commit("list-1", path: "Documents/Groceries.txt", base: revisions["list-1"], kind: .file),
      S.commit("list-2", path: "Documents/Old/Books.txt", base: revisions["list-2"], kind: .file),
    ])
    #expect(try await alice.sharesInContainer().first { $0.id == lists.id }?.folder == "Lists")
  }
}
