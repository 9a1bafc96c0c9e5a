import Foundation
import Hummingbird
import NIOCore
import QuireSyncProtocol

/// The sync API (docs/sync-api.yaml): sign-in, chunks, commits, manifests, the journal and its
/// event stream.
struct SyncRoutes: Sendable {
  let store: ServerStore
  let configuration: ServerConfiguration
  let reading: RequestReading
  let limiter: CommitRateLimiter
  let signal: JournalSignal
  /// Slows password guessing on `/v1/sign-in`.
  let throttle: SignInThrottle

  func add(to router: Router<ServerRequestContext>) {
    router.get("/v1/health") { _, _ in ServerResponse.json(["status": "ok"]) }
    router.post("/v1/sign-in") { request, context in
      let body = try await reading.json(SignInRequest.self, from: request, limit: 4096)
      switch try await PasswordSignIn(store: store, throttle: throttle).signIn(
        user: body.user, password: body.password, device: body.device, peer: context.peer)
      {
      case .signedIn(let answer): return ServerResponse.json(answer)
      case .refused(let response): return response
      }
    }
    router.post("/v1/chunks") { request, _ in
      let device = try reading.device(request)
      let body = try await reading.bytes(of: request, limit: configuration.maximumChunkBodyBytes)
      let count = try store.chunks.storeChunks(
        user: device.user, body: body,
        maximumChunk: ContentChunker.standard.maximumSize)
      return ServerResponse.json(["stored": count])
    }
    router.post("/v1/chunks/missing") { request, _ in
      let device = try reading.device(request)
      let list = try await reading.json(ChunkList.self, from: request)
      return ServerResponse.json(
        ChunkList(hashes: try store.chunks.missingChunks(user: device.user, hashes: list.hashes)))
    }
    router.post("/v1/chunks/signatures") { request, _ in
      let device = try reading.device(request)
      let list = try await reading.json(ChunkList.self, from: request)
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.json(try store.chunks.signatures(user: device.user, hashes: list.hashes))
      }
    }
    router.post("/v1/chunks/deltas") { request, _ in
      let device = try reading.device(request)
      let list = try await reading.json(ChunkDeltaList.self, from: request)
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.json(
          ChunkList(
            hashes: try store.chunks.storeDeltas(
              user: device.user, deltas: list.deltas,
              maximumChunk: ContentChunker.standard.maximumSize)))
      }
    }
    router.post("/v1/chunks/fetch-deltas") { request, _ in
      let device = try reading.device(request)
      let asked = try await reading.json(ChunkDeltaRequest.self, from: request)
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.json(try store.chunks.deltas(user: device.user, wanted: asked.wanted))
      }
    }
    router.post("/v1/chunks/fetch") { request, _ in
      let device = try reading.device(request)
      let hashes = try await reading.chunkFetch(request)
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.chunks(try store.chunks.fetchChunks(user: device.user, hashes: hashes))
      }
    }
    router.post("/v1/containers/:container/commits") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let commit = try await reading.json(CommitRequest.self, from: request)
      guard limiter.allow(device.id) else {
        throw SyncError(.rateLimited, "This device commits too fast; wait a moment and retry.")
      }
      let (answers, moved) = try store.commits.commit(
        [commit], container: container, device: device,
        maximumMembers: configuration.maximumMembersPerCommit)
      signal.wake("\(device.user)/\(container)")  // the commit told the other replicas
      sharesMoved(moved, owner: device.user)
      let answer = answers[0]
      return ServerResponse.json(answer, status: answer.status == .current ? .created : .ok)
    }
    router.post("/v1/containers/:container/commits/batch") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let batch = try await reading.commitBatch(request)
      guard limiter.allow(device.id) else {  // a batch costs one commit of the device's rate
        throw SyncError(.rateLimited, "This device commits too fast; wait a moment and retry.")
      }
      let (answers, moved) = try store.commits.commit(
        batch.commits, container: container, device: device,
        maximumMembers: configuration.maximumMembersPerCommit)
      signal.wake("\(device.user)/\(container)")  // the commit told the other replicas
      sharesMoved(moved, owner: device.user)
      return ServerResponse.json(CommitBatchResponse(results: answers))
    }
    router.post("/v1/containers/:container/folders/move") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      let move = try await reading.json(FolderMoveRequest.self, from: request, limit: 16_384)
      guard limiter.allow(device.id) else {
        throw SyncError(.rateLimited, "This device commits too fast; wait a moment and retry.")
      }
      let (answer, moved) = try store.commits.moveFolder(
        move, container: container, device: device)
      signal.wake("\(device.user)/\(container)")  // the commit told the other replicas
      sharesMoved(moved, owner: device.user)
      return ServerResponse.json(answer, status: .created)
    }
    router.get("/v1/containers/:container/changes") { request, context in
      let device = try reading.device(request)
      let container = try context.parameters.require("container")
      return ServerResponse.json(
        try store.commits.changes(
          container: container, user: device.user, since: try reading.cursor(request),
          limit: reading.limit(request), folderMoves: reading.readsFolderMoves(request)))
    }
    router.get("/v1/containers/:container/items/:item/revisions/:revision") { request, context in
      let device = try reading.device(request)
      let (revision, since) = try reading.revisions(request, context)
      return ServerResponse.json(
        try store.commits.manifest(
          container: try context.parameters.require("container"),
          item: try context.parameters.require("item"), revision: revision, since: since,
          user: device.user, edits: reading.readsChunkEdits(request)))
    }
    router.post("/v1/containers/:container/manifests") { request, context in
      let device = try reading.device(request)
      let batch = try await reading.manifestBatch(request)
      let container = try context.parameters.require("container")
      return try await reading.heavy.run("account:\(device.user)") {
        ServerResponse.json(
          ManifestBatchResponse(
            manifests: try store.commits.manifests(
              container: container, revisions: batch.revisions, user: device.user)))
      }
    }
    EventStream(store: store, reading: reading, signal: signal, configuration: configuration)
      .add(to: router)
  }

  /// Tells the owner's and the participants' devices that folder shares followed their folder
  /// to its new name (their share events), so they ask again what is shared.
  private func sharesMoved(_ participants: [Int64], owner: Int64) {
    guard !participants.isEmpty else { return }
    signal.notify(ShareRoutes.sharesKey(owner))
    for participant in Set(participants) { signal.notify(ShareRoutes.sharesKey(participant)) }
  }
}
