import Foundation
import Hummingbird
import NIOCore
import QuireSyncProtocol
import ServiceLifecycle

/// The sharing API (docs/sync-api.yaml). An owner shares an item with another account
/// (`…/items/{item}/shares`); the participant lists what is shared with it (`/v1/shares`) and
/// reaches each item through `/v1/shares/{share}/…`, which mirrors a container's routes limited
/// to that item. Writes through a read-only share are `forbidden` (403); a share that is not the
/// caller's, or was revoked, is `notFound`, as one that never existed.
struct ShareRoutes: Sendable {
  let store: ServerStore
  let configuration: ServerConfiguration
  let reading: RequestReading
  let limiter: CommitRateLimiter
  let signal: JournalSignal
  /// Slows the guessing of account names through shares.
  let throttle: SignInThrottle

  func add(to router: Router<ServerRequestContext>) {
    addOwnerRoutes(to: router)
    router.get("/v1/shares") { request, _ in
      let device = try reading.device(request)
      return ServerResponse.json(ShareList(shares: try store.shares.sharedWith(user: device.user)))
    }
    router.get("/v1/shares/events") { request, _ in
      let device = try reading.device(request)
      let listener = signal.listen(
        Self.sharesKey(device.user), keepAlive: configuration.keepAliveInterval, device: device.id)
      return Self.sharesChanged(
        listener, signedIn: reading.stillSignedIn(request))
    }
    let share = "/v1/shares/:share"
    router.get(RouterPath(share + "/changes")) { request, context in
      let device = try reading.device(request)
      return ServerResponse.json(
        try store.shares.sharedChanges(
          try context.parameters.require("share"), user: device.user,
          since: try reading.cursor(request), limit: reading.limit(request)))
    }
    router.get(RouterPath(share + "/items/:item/revisions/:revision")) { request, context in
      let device = try reading.device(request)
      let (revision, since) = try reading.revisions(request, context)
      return ServerResponse.json(
        try store.shares.sharedManifests(
          try context.parameters.require("share"), user: device.user,
          revisions: [(try context.parameters.require("item"), revision, since)])[0])
    }
    router.post(RouterPath(share + "/manifests")) { request, context in
      let device = try reading.device(request)
      let batch = try await reading.manifestBatch(request)
      let share = try context.parameters.require("share")
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.json(
          ManifestBatchResponse(
            manifests: try store.shares.sharedManifests(
              share, user: device.user,
              revisions: batch.revisions.map { ($0.item, $0.revision, nil) })))
      }
    }
    router.post(RouterPath(share + "/chunks/fetch")) { request, context in
      let device = try reading.device(request)
      let hashes = try await reading.chunkFetch(request)
      let share = try context.parameters.require("share")
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.chunks(
          try store.shares.sharedChunks(share, user: device.user, hashes: hashes))
      }
    }
    router.post(RouterPath(share + "/chunks/missing")) { request, context in
      let device = try reading.device(request)
      let list = try await reading.json(ChunkList.self, from: request)
      return ServerResponse.json(
        ChunkList(
          hashes: try store.shares.sharedMissingChunks(
            try context.parameters.require("share"), user: device.user, hashes: list.hashes)))
    }
    router.post(RouterPath(share + "/chunks")) { request, context in
      let device = try reading.device(request)
      let body = try await reading.bytes(of: request, limit: configuration.maximumChunkBodyBytes)
      let count = try store.shares.storeSharedChunks(
        try context.parameters.require("share"), user: device.user, body: body,
        maximumChunk: ContentChunker.standard.maximumSize)
      return ServerResponse.json(["stored": count])
    }
    router.post(RouterPath(share + "/commits")) { request, context in
      let device = try reading.device(request)
      let request = try await reading.json(CommitRequest.self, from: request)
      let answer = try commit([request], share: try context.parameters.require("share"), device)[0]
      return ServerResponse.json(answer, status: answer.status == .current ? .created : .ok)
    }
    router.post(RouterPath(share + "/commits/batch")) { request, context in
      let device = try reading.device(request)
      let batch = try await reading.commitBatch(request)
      return ServerResponse.json(
        CommitBatchResponse(
          results: try commit(
            batch.commits, share: try context.parameters.require("share"), device)))
    }
    router.get(RouterPath(share + "/events")) { request, context in
      let device = try reading.device(request)
      let id = try context.parameters.require("share")
      let shared = try store.shares.sharedItem(id, user: device.user)
      let listener = signal.listen(
        shared.signalKey, keepAlive: configuration.keepAliveInterval, device: device.id,
        stream: "share/" + id)
      return EventStream.response(
        from: try reading.cursor(request), listener: listener, on: BlockingExecutor.shared,
        signedIn: reading.stillSignedIn(request)
      ) {
        [store] cursor throws(SyncError) in
        try store.shares.sharedChanges(id, user: device.user, since: cursor, limit: 500)
      }
    }
  }

  /// A participant's commits, at the device's commit rate; the owner's devices are woken.
  private func commit(_ commits: [CommitRequest], share: String, _ device: AuthenticatedDevice)
    throws(SyncError) -> [CommitResponse]
  {
    guard limiter.allow(device.id) else {
      throw SyncError(.rateLimited, "This device commits too fast; wait a moment and retry.")
    }
    let (answers, shared) = try store.shares.sharedCommit(
      commits, share: share, device: device,
      maximumMembers: configuration.maximumMembersPerCommit)
    signal.notify(shared.signalKey)
    return answers
  }

  /// The owner's routes: share an item or a folder, list the participants, stop sharing.
  /// Checks that `name` is an account's, as `account` shares with it: throws `notFound` if it
  /// is not; answers `429 rateLimited` with `Retry-After` once `account` has named too many
  /// that are not (``SignInThrottle``); nil if the share may go ahead.
  private func lookUp(_ name: String, by account: Int64) throws -> Response? {
    if let wait = throttle.beginLookup(by: account) {
      let seconds = wait.components.seconds + 1
      var response = ServerResponse.error(
        SyncError(
          .rateLimited,
          "Too many shares with names that are no account's. Try again in \(seconds) s."))
      response.headers[.retryAfter] = String(seconds)
      return response
    }
    do {
      _ = try store.accounts.accountID(named: name)
    } catch  where error.code == .notFound {
      throw error  // a wrong guess: its charge stays
    } catch {
      throttle.finishLookup(by: account, found: true)  // not a guess: the store failed
      throw error
    }
    throttle.finishLookup(by: account, found: true)
    return nil
  }

  private func addOwnerRoutes(to router: Router<ServerRequestContext>) {
    let path = "/v1/containers/:container/items/:item/shares"
    router.post(RouterPath(path)) { request, context in
      let device = try reading.device(request)
      let body = try await reading.json(ShareRequest.self, from: request)
      if let refused = try lookUp(body.user, by: device.user) { return refused }
      let share = try store.shares.share(
        container: try context.parameters.require("container"),
        item: try context.parameters.require("item"), user: device.user, with: body.user,
        role: body.role)
      try sharesChanged(for: device.user, and: body.user)
      return ServerResponse.json(share, status: .created)
    }
    router.get(RouterPath(path)) { request, context in
      let device = try reading.device(request)
      return ServerResponse.json(
        ShareList(
          shares: try store.shares.shares(
            container: try context.parameters.require("container"),
            item: try context.parameters.require("item"), user: device.user)))
    }
    router.post("/v1/containers/:container/shares") { request, context in
      let device = try reading.device(request)
      let body = try await reading.json(ShareRequest.self, from: request)
      guard let folder = body.folder else {
        throw SyncError(
          .malformed, "Name the folder to share (folder), or share an item through its route.")
      }
      if let refused = try lookUp(body.user, by: device.user) { return refused }
      let share = try store.shares.share(
        container: try context.parameters.require("container"), folder: "Documents/" + folder,
        user: device.user, with: body.user, role: body.role)
      try sharesChanged(for: device.user, and: body.user)
      return ServerResponse.json(share, status: .created)
    }
    router.delete("/v1/containers/:container/shares/:share") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let participant = try store.shares.unshare(
        container: container, share: try context.parameters.require("share"), user: device.user)
      signal.notify("\(device.user)/\(container)")
      try sharesChanged(for: device.user, and: participant)
      return Response(status: .noContent)
    }
    router.get("/v1/containers/:container/shares") { request, context in
      let device = try reading.device(request)
      return ServerResponse.json(
        ShareList(
          shares: try store.shares.shares(
            container: try context.parameters.require("container"), user: device.user)))
    }
    router.delete(RouterPath(path + "/:user")) { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      try store.shares.unshare(
        container: container, item: try context.parameters.require("item"), user: device.user,
        with: try context.parameters.require("user"))
      // The participant's event streams end when they next read: wake them.
      signal.notify("\(device.user)/\(container)")
      try sharesChanged(for: device.user, and: try context.parameters.require("user"))
      return Response(status: .noContent)
    }
  }

  /// The key of the account `user`'s share events.
  static func sharesKey(_ user: Int64) -> String { "\(user)#shares" }

  /// Tells the owner's and the participant's devices, on every replica, that their shares
  /// changed.
  private func sharesChanged(for owner: Int64, and participant: String) throws(SyncError) {
    signal.notify(Self.sharesKey(owner))
    signal.notify(Self.sharesKey(try store.accounts.accountID(named: participant)))
  }

  /// `GET /v1/shares/events`: a `shares` event at once and after each wake, a keep-alive
  /// comment when idle. The events carry nothing: the devices ask again what is shared. It
  /// ends, as every event stream does, on shutdown and once the device is revoked.
  private static func sharesChanged(
    _ listener: JournalSignal.Listener, signedIn: @escaping @Sendable () -> Bool
  ) -> Response {
    let changed = "event: shares\ndata: {}\n\n"
    return Response(
      status: .ok,
      headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
      body: ResponseBody { writer in
        try await withGracefulShutdownHandler {
          try await writer.write(ByteBuffer(string: "retry: 1000\n\n" + changed))
          for await wake in listener.wakes {
            guard signedIn() else { break }
            try await writer.write(
              ByteBuffer(string: wake == .changed ? changed : ": keep-alive\n\n"))
          }
          try await writer.finish(nil)
        } onGracefulShutdown: {
          listener.end()
        }
      })
  }
}
