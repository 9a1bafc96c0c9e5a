import Foundation
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// `GET /v1/containers/{container}/events`: the journal as server-sent events. Each commit is an
/// event whose `id` is its sequence, so a client that reconnects with `Last-Event-ID` (or
/// `?since=`) resumes exactly where it stopped; idle streams get a keep-alive comment.
struct EventStream: Sendable {
  let store: ServerStore
  let reading: RequestReading
  let signal: JournalSignal
  let configuration: ServerConfiguration

  func add(to router: Router<BasicRequestContext>) {
    router.get("/v1/containers/:container/events") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      try SyncIdentifier.checkContainer(container)
      let start = try reading.cursor(request)
      let wakes = signal.listen(
        "\(device.user)/\(container)", keepAlive: configuration.keepAliveInterval)
      return Response(
        status: .ok,
        headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
        body: ResponseBody { [store] writer in
          var cursor = start
          try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
          cursor = try await send(
            after: cursor, container: container, user: device.user, store, &writer)
          for await wake in wakes {
            let before = cursor
            cursor = try await send(
              after: cursor, container: container, user: device.user, store, &writer)
            if wake == .keepAlive && before == cursor {
              try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
            }
          }
          try await writer.finish(nil)
        })
    }
  }

  /// Writes every entry after `cursor` as an event; returns the new cursor.
  private func send(
    after cursor: Int64, container: String, user: Int64, _ store: ServerStore,
    _ writer: inout any ResponseBodyWriter
  ) async throws -> Int64 {
    var cursor = cursor
    while true {
      let page = try store.changes(container: container, user: user, since: cursor, limit: 500)
      var text = ""
      for entry in page.entries {
        let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        text += "id: \(entry.sequence)\nevent: change\ndata: \(json)\n\n"
      }
      if !text.isEmpty { try await writer.write(ByteBuffer(string: text)) }
      cursor = page.cursor
      if !page.more { return cursor }
    }
  }
}
