import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// A folder share covers its folder and nothing else, also after the owner moves things: it
/// follows the folder when the owner renames it, and never spreads to a folder the owner moved a
/// shared document into.
@Suite("A folder share's scope", .serialized, .timeLimit(.minutes(4)))
struct FolderShareScopeTests {
  @Test("moving a shared folder's last document into a private folder does not share that folder")
  func moveIntoPrivateFolder() async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(.embedded)
    let diary = try await alice.commit(
      S.commit(
        "diary", path: "Documents/Shared/diary.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("dear diary")], with: alice)))
    let secret = try await alice.commit(
      S.commit(
        "secret", path: "Documents/Private/secret.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("alice's secret")], with: alice)))
    let share = try await alice.share(folder: "Shared", with: "bob", role: .write)
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let cursor = try await shared.changes(since: 0).cursor

    // The owner moves the shared folder's only document into Private/.
    let moved = try await alice.commit(
      S.commit("diary", path: "Documents/Private/diary.txt", base: diary.revision, kind: .file))

    #expect(try await alice.sharesInContainer().map(\.folder) == ["Shared"])
    let later = try await shared.changes(since: cursor).entries
    #expect(later.map(\.item) == ["diary"] && later[0].deleted)
    #expect(try await shared.changes(since: 0).entries.allSatisfy { $0.item != "secret" })
    await ShareTests.expect(.notFound) {
      _ = try await shared.manifest(item: "secret", revision: secret.revision)
    }
    await ShareTests.expect(.notFound) {
      _ = try await shared.manifest(item: "diary", revision: moved.revision)
    }
    // Nor can bob delete or edit it through the share.
    do {
      _ = try await shared.commit(
        S.commit(
          "secret", path: "Documents/Shared/secret.txt", base: secret.revision, kind: .file,
          deleted: true))
      Issue.record("bob deleted alice's private document through the share")
    } catch {
      #expect([.notFound, .forbidden].contains(error.code), "\(error)")
    }
    let stillThere = try await alice.changes(since: 0).entries.filter { $0.item == "secret" }
    #expect(stillThere.last?.deleted == false)
  }

  @Test("a real rename, into a folder that held nothing, still carries the share")
  func renameStillFollows() async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(.embedded)
    let plan = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Shared/plan.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("the plan")], with: alice)))
    let share = try await alice.share(folder: "Shared", with: "bob", role: .read)
    _ = try await alice.commit(
      S.commit("plan", path: "Documents/Renamed/plan.txt", base: plan.revision, kind: .file))
    #expect(try await alice.sharesInContainer().map(\.folder) == ["Renamed"])
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let entries = try await shared.changes(since: 0).entries
    #expect(entries.last?.item == "plan" && entries.last?.deleted == false)
  }

  @Test("a rename sent in several batches (an edited document's apart) still carries the share")
  func renameInBatches() async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(.embedded)
    defer { withExtendedLifetime(server) {} }  // released, the server would be stopped
    let members = try await S.upload(["": S.bytes("notes")], with: alice)
    let one = try await alice.commit(
      S.commit("one", path: "Documents/Shared/one.txt", base: nil, kind: .file, upserted: members))
    let two = try await alice.commit(
      S.commit("two", path: "Documents/Shared/two.txt", base: nil, kind: .file, upserted: members))
    _ = try await alice.share(folder: "Shared", with: "bob", role: .read)
    _ = try await alice.commit(
      S.commit("one", path: "Documents/Renamed/one.txt", base: one.revision, kind: .file))
    #expect(try await alice.sharesInContainer().map(\.folder) == ["Shared"])
    _ = try await alice.commit(
      S.commit("two", path: "Documents/Renamed/two.txt", base: two.revision, kind: .file))
    #expect(try await alice.sharesInContainer().map(\.folder) == ["Renamed"])
    #expect(try await bob.sharedWithMe().map(\.name) == ["Renamed"])
  }

  @Test("a name starting with a combining mark inside a shared folder does not break its feed")
  func combiningMark() async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(.embedded)
    let members = try await S.upload(["": S.bytes("accent")], with: alice)
    _ = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Shared/plan.txt", base: nil, kind: .file, upserted: members))
    let share = try await alice.share(folder: "Shared", with: "bob", role: .write)
    // “/” followed by U+0301 is one character for Swift, two code points for the database.
    let odd = "Documents/Shared/\u{301}odd.txt"
    let made = try await alice.commit(
      S.commit("odd", path: odd, base: nil, kind: .file, upserted: members))
    let shared = SyncClient(server: server.url, token: bob.token, share: share.id)
    let entries = try await shared.changes(since: 0).entries
    #expect(entries.map(\.item) == ["plan", "odd"])
    #expect(entries.last.map { Array($0.path.utf8) } == Array(odd.utf8))
    // And it moves out as a deletion at its own path, read the same way.
    _ = try await alice.commit(
      S.commit("odd", path: "Documents/\u{301}odd.txt", base: made.revision, kind: .file))
    let last = try #require(try await shared.changes(since: 0).entries.last)
    #expect(last.item == "odd" && last.deleted && Array(last.path.utf8) == Array(odd.utf8))
  }
}
