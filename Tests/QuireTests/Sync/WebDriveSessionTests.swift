import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSync
import QuireSyncProtocol
import Testing

/// The web drive's session against a real server on both engines: its trash lists a deleted
/// document with the version a restore brings back (a conflict's copy is not it), the restore
/// through the sync API takes the session, and a write with the session from another site's
/// page is refused; and a request for a host the server was not told to answer to reaches nothing.
@Suite("The web drive's session and trash")
struct WebDriveSessionTests {
  typealias S = SyncTestSupport
  static let container = "iCloud.net.gacha.quire"

  @Test(
    "a deleted document is in the trash and its restore brings back its last version",
    arguments: ServerBackend.allCases)
  func trash(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let alice = try await server.client("alice", container: Self.container)
    let first = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Notes/Plan.txt", base: nil, kind: .file,
        upserted: try await S.upload(["": S.bytes("first\n")], with: alice)))
    let second = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Notes/Plan.txt", base: first.revision, kind: .file,
        upserted: try await S.upload(["": S.bytes("second\n")], with: alice)))
    // A stale edit: kept as a conflict's copy, a side version, not the one to restore.
    _ = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Notes/Plan.txt", base: first.revision, kind: .file,
        upserted: try await S.upload(["": S.bytes("stale\n")], with: alice)))
    let versions = try await alice.versions(item: "plan")
    let deletion = try await alice.commit(
      S.commit(
        "plan", path: "Documents/Notes/Plan.txt", base: versions.current, kind: .file,
        deleted: true))
    #expect(deletion.status == .current, "\(deletion) after \(versions)")
    let session = try await Self.session(server)
    let base = server.url.absoluteString

    struct Trashed: Decodable {
      var item: String
      var path: String
      var revision: Int64
    }
    let (status, body) = try await Self.send(.GET, base + "/web/trash", cookie: session)
    #expect(status == 200)
    let trashed = try JSONDecoder().decode([Trashed].self, from: Data(body))
    #expect(trashed.map(\.path) == ["Notes/Plan.txt"])
    #expect(trashed.map(\.revision) == [second.revision])

    let restore =
      base + "/v1/containers/\(Self.container)/items/plan/versions/\(second.revision)/restore"
    #expect(
      try await Self.send(.POST, restore, cookie: session, origin: "http://evil.example").0 == 403)
    #expect(try await Self.send(.POST, restore, cookie: session, origin: base).0 == 201)
    let (_, after) = try await Self.send(.GET, base + "/web/trash", cookie: session)
    #expect(try JSONDecoder().decode([Trashed].self, from: Data(after)).isEmpty)
    let (read, bytes) = try await Self.send(.GET, base + "/dav/Notes/Plan.txt", cookie: session)
    #expect(read == 200 && bytes == S.bytes("second\n"))
  }

  @Test(
    "with a trusted host, a request for another name (DNS rebinding) reaches no route, not even sign-in"
  )
  func trustedHost() async throws {
    let server = try await SyncServerProcess.started(
      arguments: ["--trusted-host", "Drive.Example."])
    let port = try #require(server.url.port)
    let base = server.url.absoluteString
    let signIn = S.bytes(#"{"user":"alice","password":"alice-password"}"#)
    for host in ["evil.example:\(port)", "drive.example.evil.example", "[::2]:\(port)", ""] {
      #expect(
        try await S.raw(.GET, base + "/", headers: [("Host", host)]) == (421, "foreignHost"),
        "\(host)")
      #expect(
        try await S.raw(.POST, base + "/web/session", body: signIn, headers: [("Host", host)])
          == (421, "foreignHost"), "\(host)")
    }
    for host in ["drive.example:\(port)", "DRIVE.example", "127.0.0.1:\(port)", "localhost"] {
      #expect(try await S.raw(.GET, base + "/", headers: [("Host", host)]).status == 200, "\(host)")
    }
    #expect(
      try await S.raw(
        .POST, base + "/web/session", body: signIn, headers: [("Host", "drive.example")]
      )
      .status == 200)
  }

  /// A new web session's cookie value.
  static func session(_ server: SyncServerProcess) async throws -> String {
    var request = HTTPClientRequest(url: server.url.absoluteString + "/web/session")
    request.method = .POST
    request.body = .bytes(ByteBuffer(string: #"{"user":"alice","password":"alice-password"}"#))
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    #expect(response.status == .ok)
    let cookie = try #require(response.headers["Set-Cookie"].first)
    #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
    let pair = try #require(cookie.split(separator: ";").first)
    return String(pair.dropFirst("quire_session=".count))
  }

  /// A request with the session's cookie (and `origin`, if given): its status and body.
  static func send(
    _ method: HTTPMethod, _ url: String, cookie: String, origin: String? = nil
  ) async throws -> (Int, [UInt8]) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    request.headers.add(name: "Cookie", value: "quire_session=\(cookie)")
    if let origin { request.headers.add(name: "Origin", value: origin) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    return (Int(response.status.code), Array(buffer: body))
  }
}
