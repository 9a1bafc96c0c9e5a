import AsyncHTTPClient
import Foundation
import NIOCore
import QuireSync
import QuireSyncProtocol
import Testing

private typealias S = SyncTestSupport

/// A revoked device hears nothing more: an event stream it opened before the revocation ends
/// (at a wake within one keep-alive interval of the revocation).
@Suite("Revoked devices' event streams", .timeLimit(.minutes(4)))
struct RevokedStreamTests {
  @Test("a stream opened before its device was revoked ends at the next commit")
  func revokedStreamEnds() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let lost = try await server.client("alice", device: "lost-phone")
    let laptop = try await server.client("alice", device: "laptop")

    var request = HTTPClientRequest(
      url: server.url.appendingPathComponent("v1/containers/iCloud.net.gacha.mydoc/events")
        .absoluteString)
    request.headers.add(name: "Authorization", value: "Bearer \(lost.token)")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(90))
    #expect(response.status == .ok)
    let body = response.body

    let listed = try Executables.run(
      "quire", ["server", "devices", "alice"] + server.dataArguments)
    let id = try #require(
      listed.stdout.split(separator: "\n").first { $0.contains("\tlost-phone\t") }?
        .split(separator: "\t").first.map(String.init))
    let revoked = try Executables.run("quire", ["server", "revoke", id] + server.dataArguments)
    #expect(revoked.status == 0, "\(revoked.stderr)")

    // The laptop's commit wakes every stream of the account; the revoked one ends instead.
    _ = try await laptop.commit(
      S.commit(
        "note", path: "Documents/Note.txt", base: nil, kind: .file,
        upserted: try await S.upload(
          ["": S.bytes("written after the phone was lost")], with: laptop)
      ))
    let text = try await withDeadline(seconds: 60) {
      var text = ""
      for try await chunk in body { text += String(buffer: chunk) }
      return text
    }
    // It ends at that wake, or (when the server read its list of revoked tokens less than a
    // keep-alive interval before the revocation) at the next wake after the list is read again:
    // within the minute either way, never open for good.
    #expect(text != nil, "the revoked device's stream is still open")
  }
}
