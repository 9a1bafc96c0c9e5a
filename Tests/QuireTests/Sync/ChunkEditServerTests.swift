import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// Chunk lists as edits between a device and a real server: a commit's edit is stored as the
/// whole list it makes, a manifest since an earlier revision comes as edits and is rebuilt, a
/// device whose record differs gets the whole lists, and an edit that does not apply is refused
/// with nothing stored.
@Suite("Sync server: chunk lists sent as edits")
struct ChunkEditServerTests {
  typealias S = SyncTestSupport

  @Test(
    "100 bytes changed in a 3 MiB file: committed and fetched as an edit, rebuilt to the whole list",
    arguments: ServerBackend.allCases)
  func editBothWays(backend: ServerBackend) async throws {
    let (server, alice, _, _) = try await ShareTests.threeAccounts(backend)
    defer { withExtendedLifetime(server) {} }
    var bytes = S.random(3 << 20, seed: 31)
    let first = try await S.upload(["": bytes], with: alice)
    let created = try await alice.commit(
      S.commit("big", path: "Documents/Big.bin", base: nil, kind: .file, upserted: first))
    bytes.replaceSubrange(1_500_000..<1_500_100, with: [UInt8](repeating: 0x5A, count: 100))
    let second = try await S.upload(["": bytes], with: alice)
    #expect(first[0].chunks.count >= 16 && second[0].chunks != first[0].chunks)
    let old = ["": first[0].chunks]
    let request = S.commit(
      "big", path: "Documents/Big.bin", base: created.revision, kind: .file, upserted: second)
    #expect(request.change.editing(base: old).edits?.count == 1, "sent as an edit")
    let edited = try await alice.commit(request, editing: old)
    #expect(edited.status == .current)

    // Stored as the whole list.
    let whole = try await alice.manifest(item: "big", revision: edited.revision)
    #expect(whole.change.upserted == second)
    // Asked for since the first revision: an edit on the wire, the whole list once rebuilt.
    let raw = try await S.get(
      "\(server.url)/v1/containers/iCloud.net.gacha.mydoc/items/big/revisions/\(edited.revision)?since=\(created.revision)&edits=1",
      token: alice.token, as: RevisionManifest.self)
    #expect(raw.change.edits?.count == 1 && raw.change.upserted.first?.chunks == [])
    let fetched = try await alice.manifest(
      item: "big", revision: edited.revision, since: created.revision, base: old)
    #expect(fetched.change.upserted == second && fetched.change.edits == nil)
    // A device whose record of the base differs gets the whole list, not a wrong one.
    let other = try await alice.manifest(
      item: "big", revision: edited.revision, since: created.revision,
      base: ["": Array(first[0].chunks.reversed())])
    #expect(other.change.upserted == second)

    // An edit that does not apply to the base, or with no base, is refused; nothing is stored.
    var wrong = S.commit(
      "big", path: "Documents/Big.bin", base: created.revision, kind: .file, upserted: first)
    wrong.change = wrong.change.editing(base: ["": second[0].chunks])
    wrong.change.edits?[0].runs.removeFirst()
    await ShareTests.expect(.invalidManifest) { _ = try await alice.commit(wrong) }
    var baseless = wrong
    baseless.base = nil
    baseless.item = "new"
    await ShareTests.expect(.invalidManifest) { _ = try await alice.commit(baseless) }
    #expect(try await alice.changes(since: 0).entries.last?.revision == edited.revision)
  }
}
