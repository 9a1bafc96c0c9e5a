import AsyncHTTPClient
import Foundation
import NIOCore
import QuireSyncProtocol
import Synchronization

extension SyncClient {
  /// The container's journal entries after `cursor` as the server pushes them (server-sent
  /// events), in commit order. The stream ends with an error when the connection drops, or when
  /// nothing — not even the server's keep-alive — arrives for `idleTimeout` (a connection that
  /// died without a word, as one through a lost NAT mapping or a dead proxy does); call again
  /// with the last entry's sequence to resume without a gap. `connected` runs once the server
  /// has accepted the stream, before any entry arrives.
  public func events(
    since cursor: Int64, idleTimeout: Duration = .seconds(45),
    connected: (@Sendable () -> Void)? = nil
  ) -> AsyncThrowingStream<ChangeEntry, any Error> {
    serverEvents(
      "\(scope)/events?folderMoves=1", lastEventID: String(cursor), named: "change",
      idleTimeout: idleTimeout,
      connected: connected
    ) { data in
      try JSONDecoder().decode(ChangeEntry.self, from: Data(data.utf8))
    }
  }

  /// A wake-up once the server has accepted the stream, and again each time what is shared with
  /// this account, or which of its items it shares, may have changed (a share made, changed or
  /// stopped, from any device or replica): then ask ``sharedWithMe()`` and
  /// ``sharesInContainer()`` again. Ends as ``events(since:idleTimeout:connected:)`` does.
  public func shareEvents(idleTimeout: Duration = .seconds(45)) -> AsyncThrowingStream<
    Void, any Error
  > {
    serverEvents(
      "/v1/shares/events", lastEventID: nil, named: "shares", idleTimeout: idleTimeout,
      connected: nil
    ) { _ in () }
  }

  /// The `named` events of the server-sent event stream at `path`, each `decode`d from its
  /// data.
  private func serverEvents<Event: Sendable>(
    _ path: String, lastEventID: String?, named name: String, idleTimeout: Duration,
    connected: (@Sendable () -> Void)?, decode: @escaping @Sendable (String) throws -> Event
  ) -> AsyncThrowingStream<Event, any Error> {
    AsyncThrowingStream { continuation in
      let heard = LastHeard()
      let task = Task {
        do {
          var request = HTTPClientRequest(url: server.absoluteString + path)
          request.headers.add(name: "Authorization", value: "Bearer \(token)")
          if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
          request.headers.add(name: "Accept", value: "text/event-stream")
          let response = try await http.execute(request, deadline: .distantFuture)
          guard response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw Self.serverError(Array(buffer: body), status: Int(response.status.code))
          }
          connected?()
          var parser = EventStreamParser(name: name)
          for try await buffer in response.body {
            heard.time.withLock { $0 = .now }
            for data in parser.feed(buffer.readableBytesView) {
              continuation.yield(try decode(data))
            }
          }
          throw SyncError(.unavailable, "The server closed the event stream.")
        } catch {
          continuation.finish(throwing: error)
        }
      }
      let watchdog = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: idleTimeout / 4)  // the watchdog's period, not an event wait
          if ContinuousClock.now - heard.time.withLock({ $0 }) > idleTimeout {
            continuation.finish(
              throwing: SyncError(
                .unavailable, "The event stream went silent for \(idleTimeout); reconnecting."))
            task.cancel()
            return
          }
        }
      }
      continuation.onTermination = { _ in
        task.cancel()
        watchdog.cancel()
      }
    }
  }
}

/// When an event stream last received bytes (shared by its reader and its watchdog).
private final class LastHeard: Sendable {
  let time = Mutex(ContinuousClock.now)
}

/// Splits a server-sent event stream into the `data` of its events of one name.
struct EventStreamParser {
  /// The events wanted (`change`, `shares`).
  let name: String
  private var pending: [UInt8] = []
  private var data = ""
  private var event = ""

  init(name: String) { self.name = name }

  /// Takes more bytes; returns the data of every event they complete.
  mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
    pending.append(contentsOf: bytes)
    var events: [String] = []
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
      var line = String(decoding: pending[..<newline], as: UTF8.self)
      pending.removeSubrange(...newline)
      if line.hasSuffix("\r") { line.removeLast() }
      if line.isEmpty {
        if event == name, !data.isEmpty { events.append(data) }
        data = ""
        event = ""
      } else if line.hasPrefix("data:") {
        if !data.isEmpty { data += "\n" }
        data += line.dropFirst(5).drop { $0 == " " }
      } else if line.hasPrefix("event:") {
        event = String(line.dropFirst(6).drop { $0 == " " })
      }
    }
    return events
  }
}
