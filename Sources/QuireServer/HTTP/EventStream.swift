import Foundation
import Hummingbird
import NIOCore
import QuireSyncProtocol
import ServiceLifecycle

/// `GET /v1/containers/{container}/events`: the journal as server-sent events. Each commit is an
/// event whose `id` is its sequence, so a client that reconnects with `Last-Event-ID` (or
/// `?since=`) resumes exactly where it stopped; idle streams get a keep-alive comment.
///
/// A stream ends when the server shuts down (so SIGTERM stops it in seconds, with clients
/// connected) and when its device token is revoked: the token is checked again on every wake
/// and keep-alive.
struct EventStream: Sendable {
  let store: ServerStore
  let reading: RequestReading
  let signal: JournalSignal
  let configuration: ServerConfiguration

  func add(to router: Router<ServerRequestContext>) {
    router.get("/v1/containers/:container/events") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      try SyncIdentifier.checkContainer(container)
      return journal(
        of: container, device: device, from: try reading.cursor(request), request: request,
        folderMoves: reading.readsFolderMoves(request))
    }
  }

  /// The journal of `device`'s account's `container` after `start`, as events, for as long as
  /// the token `request` signed in with holds; folders' moves as one event each if the reader
  /// reads them (``CommitStore/changes(container:user:since:limit:folderMoves:)``).
  func journal(
    of container: String, device: AuthenticatedDevice, from start: Int64, request: Request,
    folderMoves: Bool = false
  ) -> Response {
    let key = "\(device.user)/\(container)"
    let listener = signal.listen(
      key, keepAlive: configuration.keepAliveInterval, device: device.id)
    return Self.response(
      from: start, listener: listener, on: BlockingExecutor.shared,
      signedIn: reading.stillSignedIn(request)
    ) {
      [store, signal] cursor throws(SyncError) in
      try await signal.page(key, after: cursor) { () throws(SyncError) in
        try store.commits.changes(
          container: container, user: device.user, since: cursor, limit: 500,
          folderMoves: folderMoves)
      }
    }
  }

  /// The stream of the entries `page` gives after `start`, and after each wake: a page that
  /// throws (a share revoked meanwhile) ends it, and so do a revoked token (`signedIn`)
  /// and the server's shutdown. The stream runs on `executor` (see
  /// ``BlockingExecutor``): it outlives the route, and its pages read the database.
  static func response(
    from start: Int64, listener: JournalSignal.Listener, on executor: (any TaskExecutor)?,
    signedIn: @escaping @Sendable () -> Bool,
    page: @escaping @Sendable (Int64) async throws(SyncError) -> ChangesPage
  ) -> Response {
    Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
      body: ResponseBody { writer in
        try await withTaskExecutorPreference(executor) {
          try await withGracefulShutdownHandler {
            var cursor = start
            try await writer.write(ByteBuffer(string: "retry: 1000\n\n"))
            cursor = try await send(after: cursor, page, &writer)
            for await wake in listener.wakes {
              guard signedIn() else { break }
              let before = cursor
              cursor = try await send(after: cursor, page, &writer)
              if wake == .keepAlive && before == cursor {
                try await writer.write(ByteBuffer(string: ": keep-alive\n\n"))
              }
            }
            try await writer.finish(nil)
          } onGracefulShutdown: {
            listener.end()
          }
        }
      })
  }

  /// Writes every entry after `cursor` as an event; returns the new cursor.
  private static func send(
    after cursor: Int64, _ page: (Int64) async throws(SyncError) -> ChangesPage,
    _ writer: inout any ResponseBodyWriter
  ) async throws -> Int64 {
    var cursor = cursor
    while true {
      let page = try await page(cursor)
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
