import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// The change journal: commit order, pushed at once, resumed without a gap, durable.
@Suite("Quire Sync change journal")
struct SyncJournalTests {
  typealias S = SyncTestSupport

  @Test("the event stream pushes each commit in order and resumes from Last-Event-ID")
  func eventStream() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    let heard = Self.collect(b.events(since: 0))
    var revisions: [Int64] = []
    var base: Int64?
    for round in 1...5 {
      let answer = try await a.commit(
        S.commit(
          "n", path: "Documents/N.txt", base: base, kind: .file,
          upserted: try await S.upload(["": S.bytes("round \(round)")], with: a)))
      base = answer.revision
      revisions.append(answer.revision)
      let pushed = await heard.wait { $0.count == round }
      #expect(pushed.last?.revision == answer.revision, "the commit was pushed before the next one")
    }
    let resumed = await Self.collect(b.events(since: 3)).wait { $0.count >= 2 }
    #expect(resumed.map(\.sequence) == [4, 5])
    #expect(resumed.map(\.revision) == Array(revisions.suffix(2)))
  }

  @Test(
    "an event stream that goes silent (a dead connection) ends, so the device reconnects",
    // A bound on a hang only: what the test asserts is the 30-s bound below. Starting a server
    // took over a minute once, when the whole suite's servers started at once on 2 cores.
    .timeLimit(.minutes(3)))
  func silentStreamEnds() async throws {
    let server = try await SyncServerProcess.started()
    let proxy = try NetworkProxy(to: server.url.port!)
    let direct = try await server.client("alice")
    let client = SyncClient(
      server: URL(string: "http://127.0.0.1:\(proxy.port)")!, token: direct.token,
      container: direct.container)
    proxy.hold(down: proxy.bytes.down)  // nothing more reaches the device, and no FIN either
    let started = ContinuousClock.now
    var ended: (any Error)?
    do {
      for try await _ in client.events(since: 0, idleTimeout: .seconds(1)) {}
    } catch {
      ended = error
    }
    #expect((ended as? SyncError)?.code == .unavailable)
    // Without the watchdog the stream would hang until the test's time limit. The bound is on
    // that hang, not on speed: the idle timeout is 1 s, and a loaded 2-core machine took 11.6 s
    // with the whole suite running, 32.5 s with two suites at once.
    #expect(ContinuousClock.now - started < .seconds(120), "the watchdog ended the silent stream")
    proxy.release()
  }

  @Test("a server killed while devices commit keeps every acknowledged commit, in order")
  func killedServerKeepsCommits() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let upload = try await S.upload(["": S.bytes("same")], with: a)
    let acknowledgements = Collector<Int64>()
    let committer = Task {
      for index in 0..<10_000 {
        do {
          let answer = try await a.commit(
            S.commit(
              "item-\(index)", path: "Documents/\(index).txt", base: nil, kind: .file,
              upserted: upload))
          await acknowledgements.append(answer.revision)
        } catch { break }
      }
    }
    // Some commits are acknowledged before the kill; how many does not matter, and each one
    // takes an fsync, slow on a loaded machine.
    #expect(await acknowledgements.wait(seconds: 60) { $0.count >= 5 }.count >= 5)
    server.kill()
    // The commit in flight fails with the connection; if it has not within 60 s, stop waiting.
    if try await withDeadline(seconds: 60, { await committer.value }) == nil { committer.cancel() }
    let acknowledged = await acknowledgements.values
    try server.restart()
    let after = try await server.client("alice")
    var entries: [ChangeEntry] = []
    var cursor: Int64 = 0
    while true {
      let page = try await after.changes(since: cursor, limit: 5000)
      entries += page.entries
      cursor = page.cursor
      if !page.more { break }
    }
    let committed = Set(entries.map(\.revision))
    #expect(acknowledged.allSatisfy(committed.contains), "an acknowledged commit was lost")
    #expect(entries.map(\.sequence) == Array(1...Int64(entries.count)), "the journal has a gap")
    #expect(
      entries.count <= acknowledged.count + 1, "at most the commit in flight landed unanswered")
  }

  /// Every entry `stream` yields, as it arrives.
  static func collect(_ stream: AsyncThrowingStream<ChangeEntry, any Error>) -> Collector<
    ChangeEntry
  > {
    let collector = Collector<ChangeEntry>()
    Task {
      for try await entry in stream { await collector.append(entry) }
    }
    return collector
  }
}
