import AsyncHTTPClient
import Foundation
import NIOCore
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// A small request must not buy a big answer: chunk references carry the stored chunk's own
/// size, a fetch sends each chunk once, and a manifest batch names each revision once.
@Suite("Hostile amplification", .serialized, .timeLimit(.minutes(4)))
struct HostileAmplificationTests {
  @Test("a chunk reference must carry the stored chunk's size; honest repeats are kept")
  func referenceSizes() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let chunk = S.bytes("sixteen bytes!!!")
    let member = try await S.upload(["": chunk], with: alice)[0]
    let hash = try #require(member.chunks.first?.hash)

    // Claimed one byte each: a thousand references would make a “1000-byte” member whose
    // download is a thousand real chunks.
    let lying = ManifestMember(
      path: "", size: 1000, mode: 0o644, modified: 0, hash: member.hash,
      chunks: Array(repeating: ChunkReference(hash: hash, size: 1), count: 1000))
    await ShareTests.expect(.invalidManifest) {
      _ = try await alice.commit(
        S.commit("lying", path: "Documents/Lying.txt", base: nil, kind: .file, upserted: [lying]))
    }
    // The same chunk named with two sizes is refused too.
    let mixed = ManifestMember(
      path: "", size: chunk.count + 1, mode: 0o644, modified: 0, hash: member.hash,
      chunks: [ChunkReference(hash: hash, size: chunk.count), ChunkReference(hash: hash, size: 1)])
    await ShareTests.expect(.invalidManifest) {
      _ = try await alice.commit(
        S.commit("mixed", path: "Documents/Mixed.txt", base: nil, kind: .file, upserted: [mixed]))
    }
    #expect(try await alice.changes(since: 0).entries.isEmpty)

    // A file whose content repeats names the same chunk again, with its true size: kept.
    let repeated = ManifestMember(
      path: "", size: chunk.count * 3, mode: 0o644, modified: 0,
      hash: ContentHash(of: chunk + chunk + chunk),
      chunks: Array(repeating: ChunkReference(hash: hash, size: chunk.count), count: 3))
    _ = try await alice.commit(
      S.commit(
        "repeated", path: "Documents/Repeated.txt", base: nil, kind: .file, upserted: [repeated]))
  }

  @Test("a fetch naming one chunk a thousand times gets it once")
  func fetchOnce() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let bytes = S.random(100_000, seed: 7)
    let member = try await S.upload(["": bytes], with: alice)[0]
    let hash = try #require(member.chunks.first?.hash)
    var request = HTTPClientRequest(
      url: server.url.appendingPathComponent("v1/chunks/fetch").absoluteString)
    request.method = .POST
    request.headers.add(name: "Authorization", value: "Bearer \(alice.token)")
    request.body = .bytes(
      ByteBuffer(
        bytes: try JSONEncoder().encode(ChunkList(hashes: Array(repeating: hash, count: 1000)))))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
    #expect(response.status == .ok)
    let body = try await response.body.collect(upTo: 1 << 30)
    #expect(body.readableBytes == ChunkFrames.headerSize + member.chunks[0].size)

    let tooMany = try JSONEncoder().encode(
      ChunkList(hashes: (0..<1025).map { ContentHash(of: Array("\($0)".utf8)) }))
    let refused = try await S.raw(
      .POST, server.url.appendingPathComponent("v1/chunks/fetch").absoluteString,
      token: alice.token, body: Array(tooMany))
    #expect(refused.status == 413)
  }

  @Test("a manifest batch naming one revision twice is refused; the client asks once")
  func manifestsOnce() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let committed = try await alice.commit(
      S.commit(
        "note", path: "Documents/Note.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("a note")], with: alice)))
    let wanted = ManifestBatch.Wanted(item: "note", revision: committed.revision)
    let batch = try JSONEncoder().encode(ManifestBatch(revisions: [wanted, wanted]))
    let refused = try await S.raw(
      .POST,
      server.url.appendingPathComponent("v1/containers/iCloud.net.gacha.mydoc/manifests")
        .absoluteString, token: alice.token, body: Array(batch))
    #expect(refused.status == 400 && refused.code == "malformed")
    let manifests = try await alice.manifests([wanted, wanted, wanted])
    #expect(manifests.count == 3 && manifests.allSatisfy { $0.revision == committed.revision })
  }
}
