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
    AsyncThrowingStream { continuation in
      let heard = LastHeard()
      let task = Task {
        do {
          var request = HTTPClientRequest(
            url: server.absoluteString + "\(scope)/events")
          request.headers.add(name: "Authorization", value: "Bearer \(token)")
          request.headers.add(name: "Last-Event-ID", value: String(cursor))
          request.headers.add(name: "Accept", value: "text/event-stream")
          let response = try await http.execute(request, deadline: .distantFuture)
          guard response.status.code == 200 else {
            let body = try await response.body.collect(upTo: 1 << 20)
            throw Self.serverError(Array(buffer: body), status: Int(response.status.code))
          }
          connected?()
          var parser = EventStreamParser()
          for try await buffer in response.body {
            heard.time.withLock { $0 = .now }
            for data in parser.feed(buffer.readableBytesView) {
              continuation.yield(try JSONDecoder().decode(ChangeEntry.self, from: Data(data.utf8)))
            }
          }
          throw SyncError(.unavailable, "The server closed the event stream.")
        } catch {
          continuation.finish(throwing: error)
        }
      }
      let watchdog = Task {
        while !Task.isCancelled {
          try? await Task.sleep(for: idleTimeout / 4)  // the watchdog's period, not a wait for an event
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

/// Splits a server-sent event stream into the `data` of its `change` events.
struct EventStreamParser {
  private var pending: [UInt8] = []
  private var data = ""
  private var event = ""

  /// Takes more bytes; returns the data of every event they complete.
  mutating func feed(_ bytes: some Sequence<UInt8>) -> [String] {
    pending.append(contentsOf: bytes)
    var events: [String] = []
    while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
      var line = String(decoding: pending[..<newline], as: UTF8.self)
      pending.removeSubrange(...newline)
      if line.hasSuffix("\r") { line.removeLast() }
      if line.isEmpty {
        if event == "change", !data.isEmpty { events.append(data) }
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
