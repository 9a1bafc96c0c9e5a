import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

@testable import QuireServer

private typealias S = SyncTestSupport

/// Sign-in tells a stranger nothing (an unknown user and a wrong password get the same answer,
/// after the same work), guessing slows down, odd identifiers are refused before they reach the
/// database, and a database's own text never reaches a client.
@Suite("Sign-in and identifier defences", .serialized, .timeLimit(.minutes(4)))
struct SignInDefenceTests {
  private static func signIn(_ server: SyncServerProcess, _ user: String, _ password: String)
    async throws -> (status: Int, code: String?)
  {
    let body = try JSONEncoder().encode(
      SignInRequest(user: user, password: password, device: "guess"))
    return try await S.raw(
      .POST, server.url.appendingPathComponent("v1/sign-in").absoluteString, body: Array(body))
  }

  @Test("an unknown user, a name with NUL and a wrong password get one answer")
  func oneAnswer() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    for (user, password) in [
      ("alice", "wrong-password"), ("nobody", "alice-password"), ("alice\0", "alice-password"),
      ("alice\u{202E}", "alice-password"),
    ] {
      let answer = try await Self.signIn(server, user, password)
      #expect(answer.status == 401 && answer.code == "badCredentials", "\(user.debugDescription)")
    }
    #expect(try await Self.signIn(server, "alice", "alice-password").status == 200)
  }

  @Test("wrong passwords past five wait, per user, with Retry-After")
  func guessingSlowsDown() async throws {
    // A first wait of an hour: the test does not depend on how fast the machine answers.
    let server = try await SyncServerProcess.started(
      users: ["alice": "alice-password", "bob": "bob-password"],
      arguments: ["--sign-in-wait", "3600"])
    for _ in 0..<5 {
      #expect(try await Self.signIn(server, "alice", "guess-number-x").code == "badCredentials")
    }
    // The fifth failure started the wait: now even the right password must wait.
    #expect(try await Self.signIn(server, "alice", "alice-password").code == "rateLimited")
    // Over loopback (a proxy in front, or this machine) there is no address to block: bob,
    // from the same address, is not locked out by alice's guesser.
    #expect(try await Self.signIn(server, "bob", "bob-password").status == 200)
  }

  @Test("shares with names that are no account's wait past five, per account")
  func shareLookupsSlowDown() async throws {
    let server = try await SyncServerProcess.started(
      users: ["alice": "alice-password", "bob": "bob-password", "carol": "carol-password"],
      arguments: ["--sign-in-wait", "3600"])
    let alice = try await server.client("alice")
    let carol = try await server.client("carol")
    for client in [alice, carol] {
      _ = try await client.commit(
        S.commit(
          "note", path: "Documents/Note.txt", base: nil, kind: .file,
          upserted: try await S.upload(["": S.bytes("text")], with: client)))
    }
    // A name that is an account's is no guess: sharing with it never counts.
    for _ in 0..<8 {
      _ = try await alice.share(item: "note", with: "bob", role: .read)
    }
    for guess in 0..<5 {
      await ShareTests.expect(.notFound) {
        _ = try await alice.share(item: "note", with: "guess-\(guess)", role: .read)
      }
    }
    // Past five wrong names, alice's shares wait, even with a real account's name, and so
    // do her folder shares: the answer no longer says which names are accounts'.
    await ShareTests.expect(.rateLimited) {
      _ = try await alice.share(item: "note", with: "bob", role: .write)
    }
    await ShareTests.expect(.rateLimited) {
      _ = try await alice.share(folder: "", with: "guess-5", role: .read)
    }
    // Another account is not held up by alice's guesses.
    _ = try await carol.share(item: "note", with: "bob", role: .read)
    #expect(try await alice.shares(of: "note").map(\.role) == [.read], "the role never changed")
  }

  @Test("attempts are charged when they begin, so a burst cannot outrun the count")
  func burst() {
    let throttle = SignInThrottle(first: .seconds(60))
    let now = ContinuousClock.now
    let admitted = (0..<1000).filter { _ in
      throttle.begin(user: "alice", address: "203.0.113.7", now: now) == nil
    }
    #expect(admitted.count == 5)
    // Another name from that address waits too; from another address it may try.
    #expect(throttle.begin(user: "bob", address: "203.0.113.7", now: now) != nil)
    #expect(throttle.begin(user: "carol", address: "198.51.100.1", now: now) == nil)
    throttle.finish(user: "carol", address: "198.51.100.1", succeeded: true)
    #expect(SignInThrottle.keys(user: "alice", address: "127.0.0.1") == ["user:alice"])
    #expect(SignInThrottle.keys(user: "alice", address: "::1") == ["user:alice"])
    #expect(
      SignInThrottle.keys(user: String(repeating: "x", count: 1000), address: "")
        == SignInThrottle.keys(user: "a\0b", address: ""))
  }

  @Test("the throttle's waits double after the free failures and end when they should")
  func ledgerWaits() {
    var ledger = SignInThrottle.Ledger()
    let start = ContinuousClock.now
    for _ in 0..<5 { ledger.failed(["u"], now: start) }
    #expect(ledger.wait(["u"], now: start) == .seconds(5))
    ledger.failed(["u"], now: start)
    #expect(ledger.wait(["u"], now: start) == .seconds(10))
    #expect(ledger.wait(["u"], now: start + .seconds(4)) == .seconds(6))
    #expect(ledger.wait(["u"], now: start + .seconds(10)) == nil)
    #expect(ledger.wait(["other"], now: start) == nil)
    for _ in 0..<40 { ledger.failed(["u"], now: start) }
    #expect(ledger.wait(["u"], now: start) == ledger.longest)
    ledger.succeeded("u")
    #expect(ledger.wait(["u"], now: start) == nil)
  }

  @Test("a commit identifier with “~” (a conflict revision's) is refused, not stuck")
  func commitIdentifiers() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let members = try await S.upload(["": S.bytes("hello")], with: alice)
    for commit in ["abc~mine", "a b", "../x", "", String(repeating: "a", count: 65), "é"] {
      var request = S.commit("note", path: "Documents/Note.txt", base: nil, kind: .file)
      request.change.upserted = members
      request.commit = commit
      await ShareTests.expect(.invalidIdentifier) { _ = try await alice.commit(request) }
    }
    #expect(try await alice.changes(since: 0).entries.isEmpty)
  }

  @Test("a client is never told a database's text")
  func noDatabaseText() {
    let failure = SyncError(
      .unavailable,
      "The server could not write its SQLite database: SQLite error 19: UNIQUE constraint failed: revisions.commitID - while executing `INSERT INTO revisions …`. Try again."
    )
    let told = ServerResponse.told(failure)
    #expect(told.code == .unavailable)
    #expect(!told.message.contains("SQLite") && !told.message.contains("INSERT"))
    let internalFailure = ServerResponse.told(
      ServerResponse.syncError(CocoaError(.fileReadCorruptFile)))
    #expect(internalFailure.code == .internalError && !internalFailure.message.contains("Cocoa"))
    let mine = SyncError(.notFound, "There is no item “x”.")
    #expect(ServerResponse.told(mine).message == mine.message)
  }
}
