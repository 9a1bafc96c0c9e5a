import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Several replicas of `quire server` sharing one PostgreSQL database and one bucket, alone and
/// behind nginx: what a device connected to one replica hears of commits made through another,
/// and what survives a replica's SIGKILL and a PostgreSQL restart.
@Suite("Server replicas on PostgreSQL", .serialized)
struct ServerReplicaTests {
  typealias S = SyncTestSupport

  @Test(
    "a device on one replica hears at once what another commits; through nginx a SIGKILLed replica loses nothing",
    .timeLimit(.minutes(3)))
  func replicasShareTheJournal() async throws {
    let (first, second) = try await Self.replicas(database: PostgresCluster.shared.database())
    let a = try await first.client("alice", device: "a")
    let b = try await second.client("alice", device: "b")
    let heard = Self.follow(a)
    var base: Int64?
    for round in 1...3 {
      let upserted = try await S.upload(["": S.bytes("round \(round)")], with: b)
      let answer = try await b.commit(
        S.commit("x", path: "Documents/X.txt", base: base, kind: .file, upserted: upserted))
      base = answer.revision
      let got = await heard.collector.wait(seconds: 60) {
        $0.contains { $0.sequence == answer.sequence }
      }
      #expect(got.contains { $0.sequence == answer.sequence }, "round \(round) reached replica 1")
      // The bytes are shared too: a device on the other replica reads them.
      let fetched = try await a.fetchChunks(upserted[0].chunks.map(\.hash))
      #expect(fetched.values.flatMap { $0 } == S.bytes("round \(round)"))
    }
    heard.task.cancel()

    let balancer = try NginxBalancer(upstreams: [first.url.port!, second.url.port!])
    let c = SyncClient(server: balancer.url, token: a.token, container: a.container)
    let d = SyncClient(server: balancer.url, token: b.token, container: b.container)
    let followed = Self.follow(c)
    defer { followed.task.cancel() }
    for round in 4...6 {
      base = try await Self.edit(d, round: round, base: base)
    }
    first.kill()
    for round in 7...9 {
      base = try await Self.edit(d, round: round, base: base)
    }
    let journal = try await d.changes(since: 0).entries.map(\.sequence)
    #expect(journal.count == 9)
    let got = await followed.collector.wait(seconds: 60) { Set($0.map(\.sequence)) == Set(journal) }
    #expect(Set(got.map(\.sequence)) == Set(journal), "the device missed a commit")
    #expect(got.map(\.sequence) == got.map(\.sequence).sorted(), "out of order")
  }

  @Test(
    "PostgreSQL restarted: commits fail with a retryable error meanwhile, then replicas reconnect and devices catch up",
    .timeLimit(.minutes(3)))
  func postgresRestart() async throws {
    let cluster = try await PostgresCluster.start()
    let (first, second) = try await Self.replicas(database: cluster.database())
    let a = try await first.client("alice", device: "a")
    let b = try await second.client("alice", device: "b")
    let heard = Self.follow(a)
    defer { heard.task.cancel() }
    var base = try await Self.edit(b, round: 1, base: nil)
    _ = await heard.collector.wait(seconds: 60) { $0.count == 1 }

    try cluster.stop()
    var failure: SyncError?
    do {
      _ = try await b.commit(S.commit("x", path: "Documents/X.txt", base: base, kind: .file))
    } catch {
      failure = error
    }
    #expect(failure?.code == .unavailable, "\(String(describing: failure))")

    try await cluster.run()
    // The first commit after the restart may still meet a connection PostgreSQL dropped: the
    // device retries, as an agent does.
    let before = base
    base = try await Self.retrying { try await Self.edit(b, round: 2, base: before) }
    let journal = try await a.changes(since: 0).entries.map(\.sequence)
    #expect(journal.count == 2, "the commit that failed while PostgreSQL was down left nothing")
    let got = await heard.collector.wait(seconds: 60) { $0.count == journal.count }
    #expect(got.map(\.sequence) == journal, "the device on the other replica caught up")
  }

  @Test(
    "commits to several containers through two replicas at once: every device hears its container's whole journal, in order",
    .timeLimit(.minutes(3)))
  func concurrentCommitsKeepTheJournalInOrder() async throws {
    let (first, second) = try await Self.replicas(database: PostgresCluster.shared.database())
    // Two accounts, two containers each: four scopes whose commits run beside each other, each
    // written to by a device on each replica and followed by a third.
    var writers: [SyncClient] = []
    var followers: [(client: SyncClient, heard: Collector<ChangeEntry>, task: Task<Void, Never>)] =
      []
    for user in ["alice", "bob"] {
      for container in ["iCloud.test.one", "iCloud.test.two"] {
        writers.append(try await first.client(user, device: "w1", container: container))
        writers.append(try await second.client(user, device: "w2", container: container))
        let follower = try await (user == "alice" ? first : second)
          .client(user, device: "f", container: container)
        let (heard, task) = Self.follow(follower)
        followers.append((follower, heard, task))
      }
    }
    defer { for follower in followers { follower.task.cancel() } }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, writer) in writers.enumerated() {
        group.addTask {
          var base: Int64?
          for round in 1...12 {
            let upserted = try await S.upload(["": S.bytes("\(index) \(round)")], with: writer)
            base = try await writer.commit(
              S.commit(
                "w\(index)", path: "Documents/W\(index).txt", base: base, kind: .file,
                upserted: upserted)
            ).revision
          }
        }
      }
      try await group.waitForAll()
    }
    for follower in followers {
      let journal = try await follower.client.changes(since: 0).entries.map(\.sequence)
      #expect(journal.count == 24, "two writers, twelve commits each")
      let got = await follower.heard.wait(seconds: 60) { $0.count >= journal.count }
      #expect(got.map(\.sequence) == journal, "the follower skipped, repeated or reordered one")
    }
  }

  @Test(
    "a replica SIGKILLed while devices commit through nginx: every commit lands once, and every device hears them all, in order",
    .timeLimit(.minutes(3)))
  func replicaKilledUnderLoad() async throws {
    let (first, second) = try await Self.replicas(database: PostgresCluster.shared.database())
    let balancer = try NginxBalancer(upstreams: [first.url.port!, second.url.port!])
    let container = "iCloud.test.kill"
    var writers: [SyncClient] = []
    var followers: [(collector: Collector<ChangeEntry>, task: Task<Void, Never>)] = []
    for index in 0..<4 {
      let signedIn = try await first.client("alice", device: "w\(index)", container: container)
      writers.append(SyncClient(server: balancer.url, token: signedIn.token, container: container))
    }
    for index in 0..<2 {
      let signedIn = try await second.client("alice", device: "f\(index)", container: container)
      followers.append(
        Self.follow(SyncClient(server: balancer.url, token: signedIn.token, container: container)))
    }
    defer { for follower in followers { follower.task.cancel() } }
    let rounds = 15
    let watched = followers[0].collector
    let victim = first.process.process.processIdentifier
    let killing = Task {
      _ = await watched.wait(seconds: 60) { $0.count >= 12 }
      kill(victim, SIGKILL)  // the replica dies with commits in flight
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, writer) in writers.enumerated() {
        group.addTask {
          var base: Int64?
          for round in 1...rounds {
            let contents = ["": S.bytes("writer \(index) round \(round)")]
            // One request per edit, sent again after a failure as an agent does: its commit
            // identifier makes a repeat of a commit that landed return the first answer.
            var request: CommitRequest?
            base = try await Self.retrying {
              let upserted = try await S.upload(contents, with: writer)
              let edit =
                request
                ?? S.commit(
                  "w\(index)", path: "Documents/W\(index).txt", base: base, kind: .file,
                  upserted: upserted)
              request = edit
              return try await writer.commit(edit).revision
            }
          }
        }
      }
      try await group.waitForAll()
    }
    await killing.value
    let journal = try await Self.retrying { try await writers[0].changes(since: 0) }.entries
    #expect(journal.count == writers.count * rounds, "every edit landed, and only once")
    for follower in followers {
      let got = await follower.collector.wait(seconds: 60) { $0.count >= journal.count }
      #expect(
        got.map(\.sequence) == journal.map(\.sequence),
        "a device skipped, repeated or reordered a commit")
    }
  }

  /// `body`'s answer, retried after each failure for up to 60 s (a replica dying under it).
  static func retrying<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    let deadline = ContinuousClock.now + .seconds(60)
    while true {
      do {
        return try await body()
      } catch  where ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(100))  // a retry pause, not a wait
      }
    }
  }

  /// Two replicas over `database` and one bucket prefix; the first made the accounts.
  static func replicas(database: URL) async throws -> (SyncServerProcess, SyncServerProcess) {
    let environment = try await SeaweedFS.shared.environment()
    let blobs = ["--blobs", "s3://\(SeaweedFS.bucket)/\(UUID().uuidString)"]
    let first = try await SyncServerProcess.started(
      arguments: blobs, environment: environment, database: database)
    let second = try await SyncServerProcess.started(
      users: [:], arguments: blobs, environment: environment, database: database)
    return (first, second)
  }

  /// Commits a new text of `Documents/X.txt` through `client`; returns the revision.
  static func edit(_ client: SyncClient, round: Int, base: Int64?) async throws -> Int64 {
    let upserted = try await S.upload(["": S.bytes("round \(round)")], with: client)
    return try await client.commit(
      S.commit("x", path: "Documents/X.txt", base: base, kind: .file, upserted: upserted)
    ).revision
  }

  /// Every entry `client` hears, reconnecting from its last sequence whenever the stream ends,
  /// as an agent does.
  static func follow(_ client: SyncClient) -> (
    collector: Collector<ChangeEntry>, task: Task<Void, Never>
  ) {
    let collector = Collector<ChangeEntry>()
    let task = Task {
      var cursor: Int64 = 0
      while !Task.isCancelled {
        do {
          for try await entry in client.events(since: cursor) {
            cursor = entry.sequence
            await collector.append(entry)
          }
        } catch {}
        try? await Task.sleep(for: .milliseconds(100))  // a reconnection pause, not a wait
      }
    }
    return (collector, task)
  }
}
