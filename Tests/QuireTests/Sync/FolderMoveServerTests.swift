import AsyncHTTPClient
import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// The server's folder move: one commit and one journal entry for the owner's devices, the
/// items' paths moved, a stale commit rebased past it, its refusals, and the shares that follow.
@Suite("Sync server: a folder's move as one commit")
struct FolderMoveServerTests {
  typealias S = SyncTestSupport

  /// Commits `paths` (under Documents/) as flat files; returns their revisions by path.
  static func commit(_ paths: [String], with client: SyncClient) async throws -> [String: Int64] {
    var revisions: [String: Int64] = [:]
    for path in paths {
      revisions[path] =
        try await client.commit(
          S.commit(
            Self.item(path), path: "Documents/" + path,
            base: nil, kind: .file, upserted: try await S.upload(["": S.bytes(path)], with: client))
        ).revision
    }
    return revisions
  }

  /// The item identity the tests give `path`: letters, digits and "-".
  static func item(_ path: String) -> String {
    "item-" + String(path.map { $0.isLetter || $0.isNumber ? $0 : "-" })
  }

  @Test(
    "a folder's move is one journal entry, whatever it holds; a commit on a base from before it lands in the moved folder",
    arguments: ServerBackend.allCases)
  func oneEntry(backend: ServerBackend) async throws {
    let (server, alice, _, _) = try await ShareTests.threeAccounts(backend)
    defer { withExtendedLifetime(server) {} }
    let revisions = try await Self.commit(
      ["A/x.txt", "A/Sub/y.txt", "B/z.txt", "Ab/w.txt"], with: alice)
    let cursor = try await alice.changes(since: 0).cursor
    // Another of Alice's devices moves the folder.
    let laptop = try await server.client("alice", device: "laptop")
    let request = FolderMoveRequest(
      commit: UUID().uuidString, move: FolderMove(from: "Documents/A", to: "Documents/C/A2"))
    let answer = try await laptop.moveFolder(request)
    #expect(answer.items == 2, "Ab/w.txt is not in A")
    let entries = try await alice.changes(since: cursor).entries
    #expect(entries.count == 1)
    #expect(entries.first?.folderMove == request.move && entries.first?.item == "")
    #expect(entries.first?.sequence == answer.sequence)
    // Sent again (its answer lost): the same answer, nothing more in the journal.
    #expect(try await laptop.moveFolder(request) == answer)
    #expect(try await alice.changes(since: cursor).entries.count == 1)

    // A device that has not heard of the move edits x.txt on its old base, at its old path.
    let edit = try await alice.commit(
      S.commit(
        Self.item("A/x.txt"), path: "Documents/A/x.txt", base: revisions["A/x.txt"], kind: .file,
        upserted: try await S.upload(["": S.bytes("edited")], with: alice)))
    #expect(edit.status == .current, "not a stale commit: only a move came after its base")
    #expect(edit.path == "Documents/C/A2/x.txt")
    // One that renamed y.txt in the old folder: the new name, in the moved folder.
    let renamed = try await alice.commit(
      S.commit(
        Self.item("A/Sub/y.txt"), path: "Documents/A/Sub/y2.txt", base: revisions["A/Sub/y.txt"],
        kind: .file))
    #expect(renamed.status == .current && renamed.path == "Documents/C/A2/Sub/y2.txt")
    let manifest = try await alice.manifest(
      item: Self.item("A/x.txt"), revision: edit.revision, since: nil)
    #expect(manifest.path == "Documents/C/A2/x.txt")
  }

  @Test(
    "a move onto a folder with documents, of an empty folder, or into itself is refused; a shared folder's rename takes its share along; a move into, out of or inside it is one commit its participant sees item by item",
    arguments: ServerBackend.allCases)
  func refusalsAndShares(backend: ServerBackend) async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(backend)
    defer { withExtendedLifetime(server) {} }
    _ = try await Self.commit(["A/x.txt", "B/z.txt", "P/Q/p.txt", "P/r.txt"], with: alice)
    /// Alice's move, saying she has seen the journal up to `seen` (its end if not given).
    func move(_ from: String, _ to: String, seen: Int64?? = nil) async throws
      -> FolderMoveResponse
    {
      var request = FolderMoveRequest(
        commit: UUID().uuidString,
        move: FolderMove(from: "Documents/" + from, to: "Documents/" + to))
      if let seen {
        request.seen = seen
      } else {
        request.seen = try await alice.changes(since: 0, limit: 1000).cursor
      }
      return try await alice.moveFolder(request)
    }
    await ShareTests.expect(.alreadyExists) { _ = try await move("A", "B") }
    await ShareTests.expect(.notFound) { _ = try await move("Empty", "Full") }
    await ShareTests.expect(.malformed) { _ = try await move("A", "A/In") }
    await ShareTests.expect(.malformed) { _ = try await move("A", "A") }
    let share = try await alice.share(folder: "P", with: "bob", role: .write)
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    /// What the participant's journal says of each item after `cursor`, by item: its path and
    /// whether it left the share.
    func participantSees(since cursor: Int64) async throws -> [String: (String, Bool)] {
      Dictionary(
        try await shared.changes(since: cursor).entries.map { ($0.item, ($0.path, $0.deleted)) }
      ) { $1 }
    }
    // Into the shared folder, inside it, out of it: one commit and one entry for Alice's
    // devices each; Bob sees the items come in, move, and go.
    var cursor = try await shared.changes(since: 0).cursor
    var mine = try await alice.changes(since: 0).cursor
    // Into or out of it, from a device that does not say what it has seen, or that has not
    // seen a document added to the folder since: refused (its items then move one by one, as
    // that device knows them), so nothing it never saw is shared or unshared.
    await ShareTests.expect(.forbidden) { _ = try await move("A", "P/A", seen: .some(nil)) }
    let before = try await alice.changes(since: 0, limit: 1000).cursor
    let added = try await Self.commit(["A/added.txt", "P/Q/added.txt"], with: alice)
    await ShareTests.expect(.forbidden) { _ = try await move("A", "P/A", seen: before) }
    await ShareTests.expect(.forbidden) { _ = try await move("P/Q", "Q", seen: before) }
    for path in ["A/added.txt", "P/Q/added.txt"] {  // gone again, so each folder holds one
      _ = try await alice.commit(
        S.commit(
          Self.item(path), path: "Documents/" + path, base: added[path], kind: .file,
          deleted: true))
    }
    cursor = try await shared.changes(since: 0).cursor
    mine = try await alice.changes(since: 0).cursor
    for (from, to) in [("A", "P/A"), ("P/Q", "P/R"), ("P/A", "A")] {
      #expect(try await move(from, to).items == 1)
      let entries = try await alice.changes(since: mine).entries
      #expect(entries.count == 1 && entries.first?.folderMove != nil, "\(from) → \(to)")
      mine = entries.last?.sequence ?? mine
      let seen = try await participantSees(since: cursor)
      switch to {
      case "P/A":
        #expect(seen[Self.item("A/x.txt")].map { $0.0 == "Documents/P/A/x.txt" && !$0.1 } == true)
      case "P/R":
        #expect(seen[Self.item("P/Q/p.txt")].map { $0.0 == "Documents/P/R/p.txt" && !$0.1 } == true)
      default:
        #expect(seen[Self.item("A/x.txt")].map { $0.1 } == true, "x.txt left the share")
      }
      #expect(seen.count == 1, "\(seen)")
      cursor = try await shared.changes(since: cursor).cursor
    }
    _ = try await move("P", "Work/P 2026")
    let moved = try await alice.sharesInContainer().first { $0.id == share.id }
    #expect(moved?.folder == "Work/P 2026")
    #expect(try await bob.sharedWithMe().first { $0.id == share.id }?.name == "P 2026")
    // The participant's journal, read again from the start, shows each item under the new
    // name (and nothing of x.txt, which is no longer in the share).
    let latest = Dictionary(
      try await shared.changes(since: 0).entries.map { ($0.item, $0.path) }
    ) { $1 }
    #expect(
      Set(latest.values) == ["Documents/P 2026/R/p.txt", "Documents/P 2026/r.txt"], "\(latest)")
  }

  @Test(
    "a device that has heard of a move keeps the path it chose; one that heard of the first of two moves only has its path taken through the second"
  )
  func seenMoves() async throws {
    let (server, alice, _, _) = try await ShareTests.threeAccounts(.embedded)
    defer { withExtendedLifetime(server) {} }
    let revisions = try await Self.commit(["A/x.txt", "A/y.txt"], with: alice)
    let laptop = try await server.client("alice", device: "laptop")
    func move(_ from: String, _ to: String) async throws -> Int64 {
      try await laptop.moveFolder(
        FolderMoveRequest(
          commit: UUID().uuidString,
          move: FolderMove(from: "Documents/" + from, to: "Documents/" + to))
      ).sequence
    }
    let first = try await move("A", "B")
    // Heard of it, and put x back in a folder named A: that is where x goes.
    var back = S.commit(
      Self.item("A/x.txt"), path: "Documents/A/x.txt", base: revisions["A/x.txt"], kind: .file)
    back.seen = first
    let kept = try await alice.commit(back)
    #expect(kept.status == .current && kept.path == "Documents/A/x.txt")
    _ = try await move("B", "D")
    // Heard of the first move only: y, renamed in B, follows the second to D.
    var renamed = S.commit(
      Self.item("A/y.txt"), path: "Documents/B/y2.txt", base: revisions["A/y.txt"], kind: .file)
    renamed.seen = first
    let followed = try await alice.commit(renamed)
    #expect(followed.status == .current && followed.path == "Documents/D/y2.txt")
  }

  @Test(
    "the device that moved a folder and put a document back under the old name before its journal reached the move keeps it there"
  )
  func ownMove() async throws {
    let (server, alice, _, _) = try await ShareTests.threeAccounts(.embedded)
    defer { withExtendedLifetime(server) {} }
    let revisions = try await Self.commit(["A/x.txt", "A/y.txt"], with: alice)
    let seen = try await alice.changes(since: 0).cursor
    _ = try await alice.moveFolder(
      FolderMoveRequest(
        commit: UUID().uuidString, move: FolderMove(from: "Documents/A", to: "Documents/B")))
    // Its journal is still before the move: it made it, so it knows it.
    var back = S.commit(
      Self.item("A/x.txt"), path: "Documents/A/x.txt", base: revisions["A/x.txt"], kind: .file)
    back.seen = seen
    let kept = try await alice.commit(back)
    #expect(kept.status == .current && kept.path == "Documents/A/x.txt")
    let latest = Dictionary(
      try await alice.changes(since: seen).entries.map { ($0.item, $0.path) }
    ) { $1 }
    #expect(latest[Self.item("A/x.txt")] == "Documents/A/x.txt", "\(latest)")
  }

  @Test(
    "a conflict resolved after its document's folder moved reaches the devices, and a reader that does not read folder moves gets each item's move"
  )
  func resolvedAfterMoveAndOldReaders() async throws {
    let (server, alice, _, _) = try await ShareTests.threeAccounts(.embedded)
    defer { withExtendedLifetime(server) {} }
    let revisions = try await Self.commit(["A/x.txt", "A/y.txt"], with: alice)
    let item = Self.item("A/x.txt")
    _ = try await alice.commit(
      S.commit(
        item, path: "Documents/A/x.txt", base: revisions["A/x.txt"], kind: .file,
        upserted: try await S.upload(["": S.bytes("edited")], with: alice)))
    let deletion = try await alice.commit(
      S.commit(
        item, path: "Documents/A/x.txt", base: revisions["A/x.txt"], kind: .file, deleted: true))
    #expect(deletion.status == .conflict)
    let cursor = try await alice.changes(since: 0).cursor
    _ = try await alice.moveFolder(
      FolderMoveRequest(
        commit: UUID().uuidString, move: FolderMove(from: "Documents/A", to: "Documents/C")))
    let unresolved =
      try await alice.changes(since: 0).entries.last { $0.item == item }?.unresolvedConflicts
      ?? []
    #expect(!unresolved.isEmpty)
    _ = try await alice.resolve(item: item, revisions: unresolved)
    let entries = try await alice.changes(since: cursor).entries
    #expect(entries.count == 2, "the move and the resolution: \(entries)")
    #expect(entries.last?.item == item && entries.last?.unresolvedConflicts == nil)

    // A reader that does not ask for folder moves (an agent from before them) gets each item
    // at its new path, and no entry it cannot read.
    var request = HTTPClientRequest(
      url: server.url.absoluteString
        + "/v1/containers/iCloud.net.gacha.mydoc/changes?since=\(cursor)")
    request.headers.add(name: "Authorization", value: "Bearer \(alice.token)")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let page = try JSONDecoder().decode(
      ChangesPage.self, from: Data(buffer: try await response.body.collect(upTo: 1 << 20)))
    #expect(page.entries.allSatisfy { $0.folderMove == nil && !$0.item.isEmpty })
    #expect(
      Set(page.entries.map(\.path)).isSuperset(of: ["Documents/C/x.txt", "Documents/C/y.txt"]))
  }
}
