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

  @Test(
    "a chunk an edit touched goes up as a delta of the chunk it replaced and comes down as one; a lying delta is not stored"
  )
  func chunkDeltas() async throws {
    let (server, alice, bob, _) = try await ShareTests.threeAccounts(.embedded)
    defer { withExtendedLifetime(server) {} }
    var bytes = S.random(3 << 20, seed: 32)
    let first = try await S.upload(["": bytes], with: alice)
    bytes.replaceSubrange(1_500_000..<1_500_100, with: [UInt8](repeating: 0x5A, count: 100))
    let edited = ChunkedContents(bytes)
    let pairs = ChunkDelta.pairs(new: edited.member(path: "").chunks, base: first[0].chunks)
    #expect(!pairs.isEmpty && pairs.count <= 3)
    let signatures = try await alice.chunkSignatures(pairs.map(\.base))
    let upload = Dictionary(edited.uploads.map { ($0.hash, $0.bytes) }) { first, _ in first }
    let deltas = pairs.compactMap { pair in
      signatures[pair.base].flatMap { signature in
        ChunkDelta.between(signature: signature, new: upload[pair.chunk]!, hash: pair.chunk)
      }
    }
    #expect(deltas.count == pairs.count, "a delta for each chunk the edit touched")
    #expect(deltas.reduce(0) { $0 + $1.bytes.count } < 16 << 10, "a few KiB, not the chunks")
    // A delta whose bytes do not make its chunk, and one from a chunk Bob does not hold, are
    // not stored.
    var lying = deltas[0]
    lying.bytes[0] ^= 0xFF
    #expect(try await alice.uploadDeltas([lying]).isEmpty)
    #expect(try await bob.uploadDeltas(deltas).isEmpty)
    #expect(Set(try await alice.uploadDeltas(deltas)) == Set(pairs.map(\.chunk)))
    #expect(try await alice.missingChunks(edited.uploads.map(\.hash)).isEmpty)
    // Down: deltas of the chunks a device holds, which make the new chunks.
    let old = Dictionary(
      ChunkedContents(S.random(3 << 20, seed: 32)).uploads.map { ($0.hash, $0.bytes) }
    ) { first, _ in first }
    let fetched = try await alice.fetchDeltas(pairs.map { .init(hash: $0.chunk, base: $0.base) })
    #expect(fetched.count == pairs.count)
    for delta in fetched {
      #expect(try delta.applied(to: old[delta.base]!, maximumSize: 1 << 20) == upload[delta.hash])
    }
    #expect(try await bob.fetchDeltas(pairs.map { .init(hash: $0.chunk, base: $0.base) }).isEmpty)
    // More deltas in one request than a server takes (the client sends 64 at a time).
    let tooMany = try JSONEncoder().encode(
      ChunkDeltaList(deltas: Array(repeating: deltas[0], count: ChunkDeltaList.maximumCount + 1)))
    let answer = try await S.raw(
      .POST, "\(server.url)/v1/chunks/deltas", token: alice.token, body: Array(tooMany))
    #expect(answer.status == 413 || answer.status == 400)
    #expect(answer.code == "tooLarge")
  }
}
