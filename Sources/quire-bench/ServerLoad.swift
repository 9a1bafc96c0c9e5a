import AsyncHTTPClient
import Foundation
import QuireSync
import QuireSyncProtocol
import Synchronization

/// The device side of `server-load`: every device holds its container's event stream open, and
/// random devices commit small edits of their own note at a steady rate. Each commit is timed
/// from its request to its entry arriving on the stream of every other device of its account.
final class ServerLoad: Sendable {
  /// One entry heard on a device's stream.
  struct Arrival {
    var key: String
    var at: ContinuousClock.Instant
  }

  /// What a run measured.
  struct Outcome {
    var commits: Int
    var notified: Int
    var latencies: [Double]
    var errors: [String]
    var healthLatencies: [Double]
  }

  static let container = "iCloud.bench.server-load"
  private let clients: [SyncClient]
  private let perAccount: Int
  private let http: HTTPClient
  private let server: URL
  private let arrivals = Mutex<[Arrival]>([])
  private let sent = Mutex<[String: ContinuousClock.Instant]>([:])
  private let errors = Mutex<[String]>([])
  private let bases = Mutex<[Int64?]>([])
  private let busy = Mutex<Set<Int>>([])
  private let connected = Atomic<Int>(0)

  init(server: URL, tokens: [String], perAccount: Int) {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(
      idleTimeout: .seconds(300),
      concurrentHTTP1ConnectionsPerHostSoftLimit: tokens.count + 512)
    configuration.timeout = .init(connect: .seconds(10))
    let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    self.http = http
    self.server = server
    self.perAccount = perAccount
    clients = tokens.map {
      SyncClient(server: server, token: $0, container: Self.container, http: http)
    }
    bases.withLock { $0 = Array(repeating: nil, count: tokens.count) }
  }

  /// Opens every device's event stream, `batch` at a time; returns once all are accepted (or
  /// throws after `seconds`). The streams run until `streams` is cancelled.
  func connect(batch: Int = 100, seconds: Double = 180) async throws -> Task<Void, Never> {
    let streams = Task {
      await withTaskGroup(of: Void.self) { group in
        for index in clients.indices {
          if index % batch == batch - 1 {
            while connected.load(ordering: .relaxed) < index - batch, !Task.isCancelled {
              try? await Task.sleep(for: .milliseconds(5))  // polling a bounded ramp-up
            }
          }
          group.addTask { await self.listen(index) }
        }
      }
    }
    let deadline = ContinuousClock.now + .seconds(seconds)
    while connected.load(ordering: .relaxed) < clients.count {
      guard ContinuousClock.now < deadline else {
        streams.cancel()
        throw RawFiles.Failure(
          description:
            "only \(connected.load(ordering: .relaxed)) of \(clients.count) event streams opened in \(Int(seconds)) s"
        )
      }
      try await Task.sleep(for: .milliseconds(20))  // polling a bounded ramp-up
    }
    return streams
  }

  /// Device `index`'s stream, reopened from its cursor if it drops (each drop is an error).
  private func listen(_ index: Int) async {
    var cursor: Int64 = 0
    let own = Self.item(index)
    while !Task.isCancelled {
      do {
        let stream = clients[index].events(since: cursor, idleTimeout: .seconds(60)) {
          self.connected.add(1, ordering: .relaxed)
        }
        for try await entry in stream {
          cursor = entry.sequence
          guard entry.item != own else { continue }
          let arrival = Arrival(key: "\(entry.item)#\(entry.revision)", at: .now)
          arrivals.withLock { $0.append(arrival) }
        }
      } catch {
        if Task.isCancelled { return }
        errors.withLock { $0.append("device \(index)'s stream: \(error)") }
        try? await Task.sleep(for: .milliseconds(100))  // a reconnecting device's back-off
      }
    }
  }

  /// Commits at `rate` per second for `seconds`, each by a random idle device; waits (up to
  /// `drain` seconds) for every notification, then stops the streams and reports.
  func run(rate: Double, seconds: Double, drain: Double = 15, streams: Task<Void, Never>)
    async -> Outcome
  {
    let start = ContinuousClock.now
    let total = Int(rate * seconds)
    let health = Task { await probeHealth(until: start + .seconds(seconds)) }
    await withTaskGroup(of: Void.self) { group in
      for number in 0..<total {
        try? await Task.sleep(until: start + .seconds(Double(number) / rate), clock: .continuous)
        guard let device = pickIdle() else {
          errors.withLock { $0.append("no idle device for commit \(number)") }
          continue
        }
        group.addTask { await self.commit(number, by: device) }
      }
    }
    let healthLatencies = await health.value
    let expected = sent.withLock { $0.count } * (perAccount - 1)
    let deadline = ContinuousClock.now + .seconds(drain)
    while arrivals.withLock({ $0.count }) < expected, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(50))  // polling a bounded drain
    }
    streams.cancel()
    let heard = arrivals.withLock { $0 }
    let times = sent.withLock { $0 }
    var latencies: [Double] = []
    for arrival in heard {
      if let time = times[arrival.key] {
        latencies.append(Double((arrival.at - time) / .microseconds(1)) / 1000)
      }
    }
    var failures = errors.withLock { $0 }
    if latencies.count < expected {
      failures.append("\(expected - latencies.count) notifications never arrived")
    }
    try? await http.shutdown()
    return Outcome(
      commits: times.count, notified: latencies.count, latencies: latencies, errors: failures,
      healthLatencies: healthLatencies)
  }

  private func pickIdle() -> Int? {
    busy.withLock { busy in
      for _ in 0..<64 {
        let device = Int.random(in: clients.indices)
        if busy.insert(device).inserted { return device }
      }
      return nil
    }
  }

  /// Device `device` uploads and commits a new text of its note.
  private func commit(_ number: Int, by device: Int) async {
    defer { _ = busy.withLock { $0.remove(device) } }
    let contents = ChunkedContents(Array("edit \(number) by device \(device)\n".utf8))
    let base = bases.withLock { $0[device] }
    do {
      _ = try await clients[device].upload(contents.uploads)
      let time = ContinuousClock.now
      let answer = try await clients[device].commit(
        CommitRequest(
          commit: UUID().uuidString, item: Self.item(device), kind: .file,
          path: "Documents/Note \(device).txt", base: base,
          change: ManifestChange(upserted: [contents.member(path: "")])))
      bases.withLock { $0[device] = answer.revision }
      sent.withLock { $0["\(Self.item(device))#\(answer.revision)"] = time }
      if answer.status != .current {
        errors.withLock { $0.append("commit \(number) was \(answer.status), not current") }
      }
    } catch {
      errors.withLock { $0.append("commit \(number) by device \(device): \(error)") }
    }
  }

  /// The floor beside the figures: `/v1/health` round trips, ten a second, under the same load.
  private func probeHealth(until end: ContinuousClock.Instant) async -> [Double] {
    var times: [Double] = []
    var request = HTTPClientRequest(url: server.absoluteString + "/v1/health")
    request.method = .GET
    while ContinuousClock.now < end {
      let began = ContinuousClock.now
      if let response = try? await http.execute(request, timeout: .seconds(10)),
        (try? await response.body.collect(upTo: 1 << 16)) != nil
      {
        times.append(Double((ContinuousClock.now - began) / .microseconds(1)) / 1000)
      }
      try? await Task.sleep(until: began + .milliseconds(100), clock: .continuous)
    }
    return times
  }

  private static func item(_ device: Int) -> String {
    String(format: "00000000-0000-4000-8000-%012x", device)
  }
}
