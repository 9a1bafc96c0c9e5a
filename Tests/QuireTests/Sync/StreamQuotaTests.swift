import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import QuireSync
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireServer

/// One token cannot pile up event streams: past a few per stream and a bound in all, the
/// device's oldest streams end, and the newest (a reconnecting device's) is always served.
@Suite("Event streams per device", .serialized, .timeLimit(.minutes(4)))
struct StreamQuotaTests {
  @Test("the oldest streams past the quota are ended, per stream and in all")
  func quotaValue() {
    var quota = StreamQuota(perKey: 2, perDevice: 3)
    #expect(quota.admit(1, key: "a", device: "d").isEmpty)
    #expect(quota.admit(2, key: "a", device: "d").isEmpty)
    #expect(quota.admit(3, key: "a", device: "d").map(\.id) == [1])
    #expect(quota.admit(4, key: "b", device: "d").isEmpty)
    #expect(quota.admit(5, key: "c", device: "d").map(\.id) == [2])
    #expect(quota.admit(9, key: "a", device: "other").isEmpty)
    quota.remove(3, device: "d")
    #expect(quota.count(of: "d") == 2)
    quota.remove(4, device: "d")
    quota.remove(5, device: "d")
    #expect(quota.count(of: "d") == 0)
  }

  @Test("a fifth stream of one token on one container ends the first")
  func fifthStreamEndsTheFirst() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let url = server.url.appendingPathComponent("v1/containers/iCloud.net.gacha.mydoc/events")
    var bodies: [HTTPClientResponse.Body] = []
    for _ in 0..<5 {
      var request = HTTPClientRequest(url: url.absoluteString)
      request.headers.add(name: "Authorization", value: "Bearer \(alice.token)")
      let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
      #expect(response.status == .ok)
      bodies.append(response.body)
    }
    let first = bodies[0]
    let ended = try await withDeadline(seconds: 90) {
      var text = ""
      for try await chunk in first { text += String(buffer: chunk) }
      return text
    }
    #expect(ended != nil, "the oldest stream is still open")
  }

  @Test("an account past its heavy requests at once is told to wait until an answer is written")
  func heavyRequests() async throws {
    let heavy = HeavyRequests(perKey: 1)
    let made = try await heavy.run("account:1") { Response(status: .ok) }
    // Made but not written: the place is still held.
    #expect(heavy.count("account:1") == 1)
    await #expect(throws: SyncError.self) {
      _ = try await heavy.run("account:1") { Response(status: .ok) }
    }
    #expect(try await heavy.run("account:2") { Response(status: .ok) }.status == .ok)
    // Dropped (its client gone) or written: the place comes back.
    _ = consume made
    #expect(heavy.count("account:1") == 0)
    #expect(try await heavy.run("account:1") { Response(status: .ok) }.status == .ok)
  }

  @Test("the revoked tokens are read once an interval for every stream")
  func revokedTokens() {
    let reads = Mutex(0)
    let revokedHash = ContentHash(of: Array("lost-phone".utf8)).hex
    let revoked = RevokedTokens(interval: .seconds(15)) { () throws(SyncError) in
      reads.withLock { $0 += 1 }
      return [revokedHash]
    }
    let start = ContinuousClock.now
    #expect(revoked.isRevoked("lost-phone", now: start))
    #expect(!revoked.isRevoked("laptop", now: start + .seconds(1)))
    #expect(reads.withLock { $0 } == 1)
    #expect(revoked.isRevoked("lost-phone", now: start + .seconds(16)))
    #expect(reads.withLock { $0 } == 2)
  }
}
