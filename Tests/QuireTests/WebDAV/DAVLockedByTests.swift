import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSync
import Testing

/// A WebDAV lock on a synced document, seen from a device: `quire versions` says who holds it
/// and until when, and an edit made on the device meanwhile is kept as a conflict version while
/// the locked text stays current.
@Suite("WebDAV locks seen from a device")
struct DAVLockedByTests {
  @Test("quire versions says who holds the lock, and an edit made meanwhile is kept aside")
  func lockedBy() async throws {
    let (server, a) = try await onThread { () throws -> (SyncServerProcess, SyncDevice) in
      let server = try SyncServerProcess()
      let a = try SyncDevice("A", server: server)
      try a.start()
      return (server, a)
    }
    defer { withExtendedLifetime(server) {} }
    try a.write("draft\n", to: "Plan.txt")
    let made = try Executables.run(
      "quire", ["server", "app-password", "alice", "--label", "Word"] + server.dataArguments)
    let password = try #require(made.stdout.split(separator: "\n").last, "\(made.stderr)")
    let signIn = [
      ("Authorization", "Basic " + Data("alice:\(password)".utf8).base64EncodedString())
    ]
    let plan = server.url.absoluteString + "/dav/Plan.txt"
    #expect(
      await eventuallyAsync {
        (try? await SyncTestSupport.raw(.GET, plan, headers: signIn).status) == 200
      }, "the document reached the drive")
    #expect(try a.quire(["versions", a.url("Plan.txt").path]).stdout.contains("Locked") == false)

    let lockinfo = """
      <?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/>\
      </D:lockscope><D:locktype><D:write/></D:locktype><D:owner><D:href>mailto:ana@example.org\
      </D:href></D:owner></D:lockinfo>
      """
    var lock = HTTPClientRequest(url: plan)
    lock.method = .RAW(value: "LOCK")
    lock.headers.add(contentsOf: signIn + [("Depth", "0"), ("Timeout", "Second-600")])
    lock.body = .bytes(ByteBuffer(bytes: Array(lockinfo.utf8)))
    let locked = try await HTTPClient.shared.execute(lock, timeout: .seconds(30))
    _ = try await locked.body.collect(upTo: 1 << 20)
    #expect(locked.status == .ok)
    let token = try #require(locked.headers.first(name: "Lock-Token"))
    let listed = try a.quire(["versions", a.url("Plan.txt").path])
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.hasPrefix("Locked by ana@example.org until "), "\(listed.stdout)")

    try a.write("typed on A while it was locked\n", to: "Plan.txt")
    #expect(
      await eventually {
        (try? a.quire(["versions", a.url("Plan.txt").path]).stdout.contains(" conflict ")) == true
      }, "the edit was kept as a conflict version")
    // The conflict version says why it is aside, after the lock too: the device's open
    // document names the lock's owner, not the device itself.
    let unlocked = try await SyncTestSupport.raw(
      .RAW(value: "UNLOCK"), plan, headers: signIn + [("Lock-Token", token)])
    #expect(unlocked.status == 204)
    let after = try a.quire(["versions", a.url("Plan.txt").path]).stdout
    let conflict = after.split(separator: "\n").first { $0.contains(" conflict ") }
    #expect(
      conflict?.hasSuffix("A (kept aside: locked by ana@example.org)") == true, "\(after)")
    #expect(!after.contains("Locked by"), "unlocked: \(after)")
    var get = HTTPClientRequest(url: plan)
    get.headers.add(contentsOf: signIn)
    let response = try await HTTPClient.shared.execute(get, timeout: .seconds(30))
    let current = try await response.body.collect(upTo: 1 << 20)
    #expect(String(buffer: current) == "draft\n", "the locked text stays current")
  }
}
