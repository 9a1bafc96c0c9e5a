import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSyncProtocol

/// A device's connection to a Quire Sync server: sign-in, chunks, commits, manifests and the
/// change journal of one container, over HTTP with a device token.
///
/// Every failure is a ``SyncError``: the server's own code and message, or `unavailable` when
/// the server cannot be reached.
public struct SyncClient: Sendable {
  /// The server's address, such as `http://127.0.0.1:8620`.
  public let server: URL
  /// The device token (`Authorization: Bearer …`).
  public let token: String
  /// The container every call is about, such as `iCloud.net.gacha.mydoc` (empty for a client
  /// of a share).
  public let container: String
  /// The share every call is about, for a client of an item shared with this account.
  public let share: String?
  let http: HTTPClient

  /// A client of `container` on `server`, signed in with `token`.
  public init(server: URL, token: String, container: String, http: HTTPClient = .shared) {
    self.server = server
    self.token = token
    self.container = container
    share = nil
    self.http = http
  }

  /// A client of the item another account shares with this one (``ShareInfo/id``): the same
  /// calls as a container's, limited to that item; writes need the `write` role.
  public init(server: URL, token: String, share: String, http: HTTPClient = .shared) {
    self.server = server
    self.token = token
    container = ""
    self.share = share
    self.http = http
  }

  /// Where the container's (or the share's) journal, manifests and commits are.
  var scope: String { share.map { "/v1/shares/\($0)" } ?? "/v1/containers/\(container)" }
  /// Where this account's (or the share's) chunks are.
  var chunkScope: String { share.map { "/v1/shares/\($0)/chunks" } ?? "/v1/chunks" }

  /// Signs in as `user` and registers this device as `device`, returning its token.
  public static func signIn(
    server: URL, user: String, password: String, device: String, http: HTTPClient = .shared
  ) async throws(SyncError) -> SignInResponse {
    let client = SyncClient(server: server, token: "", container: "", http: http)
    return try await client.send(
      .POST, "/v1/sign-in", json: SignInRequest(user: user, password: password, device: device),
      authorized: false)
  }

  /// Those of `hashes` the server lacks for this account.
  public func missingChunks(_ hashes: [ContentHash]) async throws(SyncError) -> [ContentHash] {
    guard !hashes.isEmpty else { return [] }
    let list: ChunkList = try await send(
      .POST, "\(chunkScope)/missing", json: ChunkList(hashes: hashes))
    return list.hashes
  }

  /// Uploads chunks, framed in bodies of at most `bodyLimit` bytes; returns the bytes sent.
  @discardableResult
  public func upload(_ chunks: [(hash: ContentHash, bytes: [UInt8])], bodyLimit: Int = 8 << 20)
    async throws(SyncError) -> Int
  {
    let bytes = Dictionary(chunks.map { ($0.hash, $0.bytes) }) { first, _ in first }
    return try await upload(chunks.map(\.hash), bodyLimit: bodyLimit) { bytes[$0]! }
  }

  /// Uploads the chunks `hashes`, asking `read` for each one's bytes only as its body is built,
  /// so a large member is never held whole; returns the bytes sent.
  ///
  /// Up to `inFlight` bodies are on their way while the next is read and framed, so reading
  /// here, the wire and the server's storing (its `fsync`s) overlap; at most `inFlight + 1`
  /// bodies are in memory.
  @discardableResult
  public func upload(
    _ hashes: [ContentHash], bodyLimit: Int = 4 << 20, inFlight limit: Int = 3,
    read: @Sendable (ContentHash) throws(SyncError) -> [UInt8]
  ) async throws(SyncError) -> Int {
    var body: [UInt8] = []
    var sent = 0
    var inFlight: [Task<Result<Void, SyncError>, Never>] = []
    defer { for task in inFlight { task.cancel() } }
    func send(_ body: [UInt8]) async throws(SyncError) {
      // A cancelled upload (the agent stopping, a share revoked) sends no further body; those
      // on their way are cancelled as it returns.
      if Task.isCancelled { throw SyncError(.unavailable, "The upload was cancelled.") }
      if inFlight.count >= max(1, limit) { try await inFlight.removeFirst().value.get() }
      sent += body.count
      inFlight.append(
        Task { () async -> Result<Void, SyncError> in
          do throws(SyncError) {
            try await sendFrames(body)
            return .success(())
          } catch {
            return .failure(error)
          }
        })
    }
    for hash in hashes {
      let bytes = try read(hash)
      if !body.isEmpty && body.count + bytes.count + ChunkFrames.headerSize > bodyLimit {
        try await send(body)
        body = []
      }
      ChunkFrames.append(hash: hash, bytes: bytes, to: &body)
    }
    if !body.isEmpty { try await send(body) }
    while !inFlight.isEmpty { try await inFlight.removeFirst().value.get() }
    return sent
  }

  /// The block signatures of those of `hashes` the server holds for this account, by hash
  /// (none through a share), to send similar chunks as deltas (``ChunkDelta``).
  public func chunkSignatures(_ hashes: [ContentHash]) async throws(SyncError)
    -> [ContentHash: ChunkSignatures.Signature]
  {
    guard share == nil else { return [:] }
    var result: [ContentHash: ChunkSignatures.Signature] = [:]
    for start in stride(from: 0, to: hashes.count, by: ChunkSignatures.maximumCount) {
      let batch = Array(hashes[start..<min(start + ChunkSignatures.maximumCount, hashes.count)])
      let answer: ChunkSignatures = try await send(
        .POST, "/v1/chunks/signatures", json: ChunkList(hashes: batch))
      for signature in answer.signatures { result[signature.hash] = signature }
    }
    return result
  }

  /// Sends chunks as `deltas` of chunks the server holds; returns those it stored (the others
  /// are to be sent whole). None through a share.
  public func uploadDeltas(_ deltas: [ChunkDelta]) async throws(SyncError) -> Set<ContentHash> {
    guard share == nil else { return [] }
    var stored = Set<ContentHash>()
    for start in stride(from: 0, to: deltas.count, by: ChunkDeltaList.maximumCount) {
      let batch = Array(deltas[start..<min(start + ChunkDeltaList.maximumCount, deltas.count)])
      let answer: ChunkList = try await send(
        .POST, "/v1/chunks/deltas", json: ChunkDeltaList(deltas: batch))
      stored.formUnion(answer.hashes)
    }
    return stored
  }

  /// Deltas for the chunks `wanted`, each of a chunk this device holds, where the server has
  /// one smaller than half the chunk; the rest are to be fetched whole. A delta is only what
  /// the server says: its result is checked against its hash when applied. None through a
  /// share.
  public func fetchDeltas(_ wanted: [ChunkDeltaRequest.Wanted]) async throws(SyncError)
    -> [ChunkDelta]
  {
    guard share == nil else { return [] }
    var deltas: [ChunkDelta] = []
    for start in stride(from: 0, to: wanted.count, by: ChunkDeltaList.maximumCount) {
      let batch = Array(wanted[start..<min(start + ChunkDeltaList.maximumCount, wanted.count)])
      let answer: ChunkDeltaList = try await send(
        .POST, "/v1/chunks/fetch-deltas", json: ChunkDeltaRequest(wanted: batch))
      deltas += answer.deltas
    }
    return deltas
  }

  /// The bytes of `hashes`, by hash.
  public func fetchChunks(_ hashes: [ContentHash]) async throws(SyncError) -> [ContentHash: [UInt8]]
  {
    var result: [ContentHash: [UInt8]] = [:]
    for start in stride(from: 0, to: hashes.count, by: 1024) {
      let batch = Array(hashes[start..<min(start + 1024, hashes.count)])
      let body = try await raw(
        .POST, "\(chunkScope)/fetch", body: try Self.encode(ChunkList(hashes: batch)),
        limit: batch.count * (ContentChunker.standard.maximumSize + ChunkFrames.headerSize))
      for frame in try ChunkFrames.parse(body, maximumChunk: ContentChunker.standard.maximumSize) {
        let bytes = Array(body[frame.range])
        guard ContentHash(of: bytes) == frame.hash else {
          throw SyncError(
            .badChunk, "The server sent bytes for chunk \(frame.hash) that do not hash to it.")
        }
        result[frame.hash] = bytes
      }
    }
    return result
  }

  /// Commits a revision.
  public func commit(_ request: CommitRequest) async throws(SyncError) -> CommitResponse {
    try await send(.POST, "\(scope)/commits", json: request)
  }

  /// Commits a revision whose base held the chunk lists `base` (by member path), sending each
  /// long list that is mostly its base's as an edit of it (``ChunkListEdit``). If the server
  /// cannot apply an edit (its base differs from this device's record), the whole lists are
  /// sent again. A share's commits send whole lists.
  public func commit(_ request: CommitRequest, editing base: [String: [ChunkReference]])
    async throws(SyncError) -> CommitResponse
  {
    var edited = request
    edited.change = request.change.editing(base: base)
    guard share == nil, edited.change.edits != nil else { return try await commit(request) }
    do {
      return try await commit(edited)
    } catch {
      guard error.code == .invalidManifest else { throw error }
      return try await commit(request)
    }
  }

  /// Commits `requests` in order, all or none, as one request (at most
  /// ``CommitBatch/maximumCount``).
  public func commit(batch requests: [CommitRequest]) async throws(SyncError) -> [CommitResponse] {
    let answer: CommitBatchResponse = try await send(
      .POST, "\(scope)/commits/batch", json: CommitBatch(commits: requests))
    guard answer.results.count == requests.count else {
      throw SyncError(
        .internalError,
        "The server answered a batch of \(requests.count) commits with \(answer.results.count) results."
      )
    }
    return answer.results
  }

  /// Commits `requests` as ``commit(batch:)`` does, each made on a base that held the chunk
  /// lists `bases` (in the same order), sending long lists as edits of them
  /// (``commit(_:editing:)``). If the server cannot apply an edit, the whole lists are sent
  /// again.
  public func commit(batch requests: [CommitRequest], editing bases: [[String: [ChunkReference]]])
    async throws(SyncError) -> [CommitResponse]
  {
    let edited = zip(requests, bases).map { request, base in
      var edited = request
      edited.change = request.change.editing(base: base)
      return edited
    }
    guard share == nil, edited.contains(where: { $0.change.edits != nil }) else {
      return try await commit(batch: requests)
    }
    do {
      return try await commit(batch: edited)
    } catch {
      guard error.code == .invalidManifest else { throw error }
      return try await commit(batch: requests)
    }
  }

  /// Moves a folder as one commit (``FolderMove``): one journal entry, whatever it holds.
  public func moveFolder(_ request: FolderMoveRequest) async throws(SyncError)
    -> FolderMoveResponse
  {
    try await send(.POST, "\(scope)/folders/move", json: request)
  }

  /// The journal after `cursor`, folders' moves as one entry each (``FolderMove``).
  public func changes(since cursor: Int64, limit: Int = 1000) async throws(SyncError) -> ChangesPage
  {
    try await send(.GET, "\(scope)/changes?since=\(cursor)&limit=\(limit)&folderMoves=1")
  }

  /// Revision `revision` of `item`: whole, or only what changed after `since`.
  public func manifest(item: String, revision: Int64, since: Int64? = nil) async throws(SyncError)
    -> RevisionManifest
  {
    let query = since.map { "?since=\($0)" } ?? ""
    return try await send(
      .GET, "\(scope)/items/\(item)/revisions/\(revision)\(query)")
  }

  /// What changed in `item` from revision `since`, whose members' chunk lists this device holds
  /// (`base`, by path), to `revision`: a changed member's long list comes as an edit of the one
  /// it had (``ChunkListEdit``), rebuilt here. If an edit does not apply to `base` (this
  /// device's record differs from the server's), the change is fetched again with whole lists.
  public func manifest(
    item: String, revision: Int64, since: Int64, base: [String: [ChunkReference]]
  ) async throws(SyncError) -> RevisionManifest {
    guard share == nil else {
      return try await manifest(item: item, revision: revision, since: since)
    }
    var manifest: RevisionManifest = try await send(
      .GET, "\(scope)/items/\(item)/revisions/\(revision)?since=\(since)&edits=1")
    do {
      manifest.change = try manifest.change.resolvingEdits { path throws(SyncError) in base[path] }
      return manifest
    } catch {
      return try await self.manifest(item: item, revision: revision, since: since)
    }
  }

  /// The whole manifests of `revisions`, in their order, a thousand per request. Each revision
  /// is asked for once (the server refuses a batch that names one twice).
  public func manifests(_ revisions: [ManifestBatch.Wanted]) async throws(SyncError)
    -> [RevisionManifest]
  {
    var seen = Set<ManifestBatch.Wanted>()
    let unique = revisions.filter { seen.insert($0).inserted }
    var manifests: [ManifestBatch.Wanted: RevisionManifest] = [:]
    for start in stride(from: 0, to: unique.count, by: ManifestBatch.maximumCount) {
      let part = unique[start..<min(start + ManifestBatch.maximumCount, unique.count)]
      let answer: ManifestBatchResponse = try await send(
        .POST, "\(scope)/manifests",
        json: ManifestBatch(revisions: Array(part)))
      guard answer.manifests.count == part.count else {
        throw SyncError(
          .internalError,
          "The server answered a batch of \(part.count) manifests with \(answer.manifests.count)."
        )
      }
      for (wanted, manifest) in zip(part, answer.manifests) { manifests[wanted] = manifest }
    }
    return revisions.compactMap { manifests[$0] }
  }

  private func sendFrames(_ body: [UInt8]) async throws(SyncError) {
    _ = try await raw(.POST, chunkScope, body: body, limit: 1 << 16)
  }
}
