import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A web drive's session ends once unused for its lifetime; each use moves the end on, written
/// at most once each half lifetime; a device's or app password's sign-in never expires.
@Suite("The web drive's session lifetime")
struct WebSessionLifetimeTests {
  @Test("a session is live before its end, and renewed only once less than half is left")
  func rule() {
    var generator = SeededGenerator(seed: 14)
    for _ in 0..<2000 {
      let lifetime = Double.random(in: 1...1e7, using: &generator)
      let expires = Double.random(in: 0...2e9, using: &generator)
      let now = expires + Double.random(in: -2 * lifetime...lifetime, using: &generator)
      #expect(SessionLifetime.isLive(expires: expires, now: now) == (now < expires))
      let renew = SessionLifetime.needsRenewal(expires: expires, lifetime: lifetime, now: now)
      #expect(renew == (expires - now < lifetime / 2))
    }
    #expect(!SessionLifetime.isLive(expires: 100, now: 100), "the end itself is past")
  }

  @Test("an unused session ends at its lifetime; a used one lives on; a device never expires")
  func store() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    try store.accounts.addUser(name: "alice", password: "alice-password")
    let start = 2_000_000_000.0
    let idle = try store.accounts.signIn(
      user: "alice", password: "alice-password", device: "Web browser",
      lifetime: .seconds(1000), now: start)
    let used = try store.accounts.signIn(
      user: "alice", password: "alice-password", device: "Web browser",
      lifetime: .seconds(1000), now: start)
    let laptop = try store.accounts.addDevice(user: "alice", name: "laptop")

    let late = try store.accounts.signIn(
      user: "alice", password: "alice-password", device: "Web browser",
      lifetime: .seconds(1000), now: start)
    // At 400 s, 600 s are left: a use does not move the end, and at 1000 s the session is over.
    #expect(try store.accounts.device(token: idle.token, now: start + 400) != nil)
    #expect(try store.accounts.device(token: idle.token, now: start + 1000) == nil)
    #expect(try store.accounts.device(token: idle.token, now: start + 1500) == nil)
    // A use with 1 s left moves the end to 1999 s; one at 1998 s moves it to 2998 s.
    #expect(try store.accounts.device(token: late.token, now: start + 999) != nil)
    #expect(try store.accounts.device(token: late.token, now: start + 1998) != nil)
    #expect(try store.accounts.device(token: late.token, now: start + 2998) == nil)

    // Used every 600 s, a session lives on well past its lifetime.
    for use in 1...10 {
      #expect(
        try store.accounts.device(token: used.token, now: start + Double(use) * 600) != nil,
        "use \(use)")
    }
    #expect(try store.accounts.device(token: used.token, now: start + 6000 + 1000) == nil)

    #expect(try store.accounts.device(token: laptop.token, now: start + 1e9) != nil)
    // Streams check their token against the sessions that ended in the last day (older ones
    // had their streams ended then, and start no new one).
    let ended = try store.accounts.revokedTokenHashes(now: start + 8000)
    #expect(ended.contains(ContentHash(of: Array(idle.token.utf8)).hex))
    #expect(ended.contains(ContentHash(of: Array(used.token.utf8)).hex))
    #expect(!ended.contains(ContentHash(of: Array(laptop.token.utf8)).hex))
    #expect(try store.accounts.revokedTokenHashes(now: start + 100).isEmpty)
    #expect(try store.accounts.revokedTokenHashes(now: start + 1e9).isEmpty)
  }

  @Test("an expired session is listed as revoked")
  func listing() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    try store.accounts.addUser(name: "alice", password: "alice-password")
    let past = Date().timeIntervalSince1970 - 10_000
    let old = try store.accounts.signIn(
      user: "alice", password: "alice-password", device: "Web browser",
      lifetime: .seconds(1000), now: past)
    let fresh = try store.accounts.signIn(
      user: "alice", password: "alice-password", device: "Web browser",
      lifetime: .seconds(1000))
    let listed = try store.accounts.devices(of: "alice")
    #expect(listed.first { $0.id == old.device }?.revoked == true)
    #expect(listed.first { $0.id == fresh.device }?.revoked == false)
  }
}
