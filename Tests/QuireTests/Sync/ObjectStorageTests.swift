import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

@testable import QuireServer

/// The server's chunk bytes in S3-compatible object storage: SeaweedFS (`weed mini`), which
/// checks every signature, in a real process on loopback. The server suites also run whole
/// against it (``ServerBackend``); these are what only object storage has.
@Suite("Object storage for the server's blobs")
struct ObjectStorageTests {
  typealias S = SyncTestSupport

  @Test("the signer gives the signature AWS publishes for its S3 GET example")
  func signerMatchesAWSExample() {
    let signer = SigV4Signer(
      accessKey: "AKIAIOSFODNN7EXAMPLE", secretKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      region: "us-east-1")
    let headers = signer.sign(
      method: "GET", path: "/test.txt",
      headers: ["Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9"],
      payloadHash: SigV4Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_369_353_600))
    #expect(headers["x-amz-date"] == "20130524T000000Z")
    #expect(
      headers["authorization"]
        == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41"
    )
  }

  @Test(
    "an upload is one object under the server's prefix, read back by ranges; none in its folder")
  func uploadsAreObjects() async throws {
    let server = try await SyncServerProcess.started(backend: .scaled)
    let a = try await server.client("alice")
    let members = (0..<50).map { ("m\($0).txt", S.random(3000, seed: UInt64($0))) }
    let manifest = try await S.upload(Dictionary(uniqueKeysWithValues: members), with: a)
    #expect(try server.packs().count == 1, "50 chunks in one upload are one object")
    let folder = server.data.url.appendingPathComponent("blobs/packs").path
    #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).isEmpty)

    // Every fourth member: the reads skip what lies between.
    let b = try await server.client("alice", device: "other")
    let wanted = manifest.enumerated().filter { $0.offset % 4 == 0 }.map(\.element)
    let fetched = try await b.fetchChunks(wanted.flatMap { $0.chunks.map(\.hash) })
    for member in wanted {
      let bytes = try #require(members.first { $0.0 == member.path }?.1)
      #expect(member.chunks.flatMap { fetched[$0.hash] ?? [] } == bytes, "\(member.path)")
    }
  }

  @Test(
    "the server remembers its bucket; another bucket, or a folder already holding chunks, is refused"
  )
  func rememberedStorage() async throws {
    let server = try await SyncServerProcess.started(backend: .scaled)
    let a = try await server.client("alice")
    let manifest = try await S.upload(["one.txt": S.bytes("kept in the bucket")], with: a)
    server.kill()

    // Started again without --blobs: the chunks are still found, in the bucket.
    try server.restart(arguments: [])
    let b = try await server.client("alice", device: "b")
    #expect(try await b.fetchChunks(manifest[0].chunks.map(\.hash)).count == 1)
    server.kill()

    let other = try Executables.run(
      "quire",
      ["server", "--port", "0", "--blobs", "s3://quire/other"] + server.dataArguments,
      environment: server.environment)
    #expect(other.status != 0)
    #expect(other.stderr.contains("keeps its blobs in s3://quire/"), "\(other.stderr)")

    let folderServer = try await SyncServerProcess.started()
    let c = try await folderServer.client("alice")
    _ = try await S.upload(["x.txt": S.bytes("in the folder")], with: c)
    folderServer.kill()
    let moved = try Executables.run(
      "quire",
      ["server", "--data", folderServer.data.path, "--port", "0", "--blobs", "s3://quire/moved"],
      environment: server.environment)
    #expect(moved.status != 0)
    #expect(moved.stderr.contains("holds 1 chunks in its folder"), "\(moved.stderr)")
  }

  @Test("wrong keys: the server does not start, and says which keys to check")
  func wrongKeys() async throws {
    let data = try TemporaryDirectory()
    var environment = try await SeaweedFS.shared.environment()
    environment["AWS_SECRET_ACCESS_KEY"] = "not-the-secret"
    let run = try Executables.run(
      "quire", ["server", "--data", data.path, "--port", "0", "--blobs", "s3://quire/wrong"],
      environment: environment)
    #expect(run.status != 0)
    let lines = run.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("AWS_SECRET_ACCESS_KEY"), "\(run.stderr)")
    #expect(
      !FileManager.default.fileExists(atPath: data.url.appendingPathComponent("blobs.json").path))
  }

  @Test(
    "storage unreachable: an upload fails with a retryable error, nothing stored; the retry lands")
  func unreachableStorage() async throws {
    var environment = try await SeaweedFS.shared.environment()
    let endpoint = try #require(URL(string: environment["AWS_ENDPOINT_URL"]!))
    let proxy = try NetworkProxy(to: endpoint.port!)
    environment["AWS_ENDPOINT_URL"] = "http://127.0.0.1:\(proxy.port)"
    let server = try await SyncServerProcess.started(
      arguments: ["--blobs", "s3://quire/\(UUID().uuidString)"], environment: environment)
    let a = try await server.client("alice")
    let contents = ChunkedContents(S.random(50_000, seed: 9))

    proxy.cut()
    await #expect {
      try await a.upload(contents.uploads)
    } throws: { ($0 as? SyncError)?.code == .unavailable }
    #expect(try await a.missingChunks(contents.uploads.map(\.hash)).count == contents.uploads.count)

    proxy.restore()
    try await a.upload(contents.uploads)
    #expect(try await a.missingChunks(contents.uploads.map(\.hash)).isEmpty)
    let fetched = try await a.fetchChunks(contents.uploads.map(\.hash))
    #expect(contents.uploads.allSatisfy { fetched[$0.hash] == $0.bytes })
  }
}
