import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// What the server refuses: every bad request gets a 4xx with a code, and nothing is stored.
@Suite("Quire Sync server refuses bad input")
struct SyncServerSafetyTests {
  typealias S = SyncTestSupport

  @Test(
    "no token, a wrong token and a revoked token are refused", arguments: ServerBackend.allCases)
  func tokens(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let changes = server.url.absoluteString + "/v1/containers/iCloud.a/changes"
    #expect(try await S.raw(.GET, changes) == (401, "unauthorized"))
    #expect(try await S.raw(.GET, changes, token: "not-a-token") == (401, "unauthorized"))
    let signIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: "phone")
    #expect(try await S.raw(.GET, changes, token: signIn.token).status == 200)
    let revoked = try Executables.run(
      "quire", ["server", "revoke", signIn.device] + server.dataArguments)
    #expect(revoked.status == 0, "\(revoked.stderr)")
    #expect(try await S.raw(.GET, changes, token: signIn.token) == (401, "unauthorized"))
    let listed = try Executables.run(
      "quire", ["server", "devices", "alice"] + server.dataArguments)
    #expect(listed.stdout.contains("\(signIn.device)\tphone") && listed.stdout.contains("revoked"))
    do {
      _ = try await SyncClient.signIn(
        server: server.url, user: "alice", password: "wrong", device: "x")
      Issue.record("a wrong password signed in")
    } catch {
      #expect(error.code == .badCredentials, "\(error)")
    }
  }

  @Test(
    "another account sees none of a container's items or chunks", arguments: ServerBackend.allCases)
  func accountsAreSeparate(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let alice = try await server.client("alice")
    let bob = try await server.client("bob")
    let secret = S.bytes("alice's secret")
    let made = try await alice.commit(
      S.commit(
        "a", path: "Documents/S.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": secret], with: alice)))
    #expect(try await bob.changes(since: 0).entries.isEmpty)
    let hash = ContentHash(of: secret)
    #expect(try await bob.missingChunks([hash]) == [hash], "bob cannot learn alice holds it")
    await #expect { _ = try await bob.manifest(item: "a", revision: made.revision) } throws: {
      ($0 as? SyncError)?.code == .notFound
    }
    let wanted = ManifestBatch.Wanted(item: "a", revision: made.revision)
    #expect(try await alice.manifests([wanted]).map(\.revision) == [made.revision])
    await #expect { _ = try await bob.manifests([wanted]) } throws: {
      ($0 as? SyncError)?.code == .notFound
    }
    await #expect { _ = try await bob.fetchChunks([hash]) } throws: {
      ($0 as? SyncError)?.code == .notFound
    }
    let stolen = try await bob.commit(
      S.commit(
        "b", path: "Documents/T.txt", base: nil, kind: .file,
        upserted: []))
    #expect(stolen.status == .current)
    await #expect {
      _ = try await bob.commit(
        S.commit(
          "c", path: "Documents/U.txt", base: nil, kind: .file,
          upserted: [ChunkedContents(secret).member(path: "")]))
    } throws: { ($0 as? SyncError)?.code == .missingChunks }
  }

  @Test(
    "hostile member and item paths are refused and nothing is stored",
    arguments: [
      "../escape", "/etc/passwd", "a/../../b", "a\u{0}b", "a//b", "a/", ".",
      String(repeating: "x", count: 256),
    ])
  func hostilePaths(path: String) async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let member = try await S.upload(["ok.txt": S.bytes("fine")], with: a)[0]
    var hostile = member
    hostile.path = path
    await #expect {
      _ = try await a.commit(
        S.commit("i", path: "Documents/P.mydoc", base: nil, upserted: [hostile]))
    } throws: { ($0 as? SyncError)?.code == .invalidPath }
    await #expect {
      _ = try await a.commit(S.commit("i", path: path, base: nil, upserted: [member]))
    } throws: { ($0 as? SyncError)?.code == .invalidPath }
    #expect(try await a.changes(since: 0).entries.isEmpty)
  }

  @Test(
    "a chunk whose bytes do not match its hash is refused and not stored",
    arguments: ServerBackend.allCases)
  func lyingChunk(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try await server.client("alice")
    let claimed = ContentHash(of: S.bytes("what I claim"))
    var body: [UInt8] = []
    ChunkFrames.append(
      hash: ContentHash(of: S.bytes("honest")), bytes: S.bytes("honest"), to: &body)
    ChunkFrames.append(hash: claimed, bytes: S.bytes("something else"), to: &body)
    let signIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: "d")
    let answer = try await S.raw(
      .POST, server.url.absoluteString + "/v1/chunks", token: signIn.token, body: body)
    #expect(answer == (400, "badChunk"))
    #expect(
      try await a.missingChunks([claimed, ContentHash(of: S.bytes("honest"))]).count == 2,
      "no chunk of a refused upload is stored")
    var cut = body
    cut.removeLast(3)
    #expect(
      try await S.raw(
        .POST, server.url.absoluteString + "/v1/chunks", token: signIn.token,
        body: Array(cut.prefix(40))) == (400, "badChunk"))
  }

  @Test(
    "malformed JSON, oversize bodies, wrong manifests and unknown endpoints get a 4xx with a code",
    arguments: ServerBackend.allCases)
  func malformedRequests(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let signIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: "d")
    let base = server.url.absoluteString
    let commits = base + "/v1/containers/iCloud.a/commits"
    #expect(
      try await S.raw(.POST, commits, token: signIn.token, body: S.bytes("{not json")) == (
        400, "malformed"
      ))
    #expect(
      try await S.raw(.POST, commits, token: signIn.token, body: S.bytes("{\"item\":\"x\"}")) == (
        400, "malformed"
      ))
    #expect(
      try await S.raw(
        .POST, commits, token: signIn.token, body: [UInt8](repeating: 0x20, count: 33 << 20)) == (
          413, "tooLarge"
        ))
    // A body of chunks past the server's limit (16 MiB), read without collecting it first.
    #expect(
      try await S.raw(
        .POST, base + "/v1/chunks", token: signIn.token,
        body: [UInt8](repeating: 0, count: (16 << 20) + 1)) == (413, "tooLarge"))
    #expect(
      try await S.raw(
        .POST, base + "/v1/containers/bad%20name/commits", token: signIn.token,
        body: Array(try JSONEncoder().encode(S.commit("i", path: "Documents/A", base: nil)))) == (
          400, "invalidIdentifier"
        ))
    let a = try await server.client("alice")
    var member = try await S.upload(["x": S.bytes("12345")], with: a)[0]
    member.size = 99
    await #expect {
      _ = try await a.commit(S.commit("i", path: "Documents/A", base: nil, upserted: [member]))
    } throws: { ($0 as? SyncError)?.code == .invalidManifest }
    await #expect {
      _ = try await a.commit(S.commit("i", path: "Documents/A", base: 12345))
    } throws: { ($0 as? SyncError)?.code == .notFound }
    let tooMany = ManifestBatch(
      revisions: (0...ManifestBatch.maximumCount).map { .init(item: "i\($0)", revision: 1) })
    #expect(
      try await S.raw(
        .POST, base + "/v1/containers/iCloud.a/manifests", token: signIn.token,
        body: Array(try JSONEncoder().encode(tooMany))) == (413, "tooLarge"))
    #expect(try await S.raw(.GET, base + "/v1/nothing", token: signIn.token) == (404, "notFound"))
    #expect(try await a.changes(since: 0).entries.isEmpty)
  }
}
