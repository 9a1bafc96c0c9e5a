import Foundation
import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// Reading what a request carries: its device (from the bearer token) and its JSON body.
struct RequestReading: Sendable {
  /// The heavy requests (fetches, manifest batches) each account runs at once.
  let heavy = HeavyRequests()
  let store: ServerStore
  let maximumJSONBytes: Int
  /// The revoked tokens event streams check theirs against at every wake.
  let revoked: RevokedTokens

  /// The device whose token the request carries, as a bearer token or in the web drive's
  /// session cookie (``WebSession``, whose writes must come from the drive's own page);
  /// `unauthorized` without one, or with one that is unknown or revoked.
  func device(_ request: Request) throws(SyncError) -> AuthenticatedDevice {
    guard let token = try Self.token(request), let device = try store.accounts.device(token: token)
    else {
      throw SyncError(
        .unauthorized,
        "This request needs a valid device token. Sign in again with quire sync login.")
    }
    return device
  }

  /// Whether the token `request` signed in with is still valid, asked by long-lived responses
  /// (event streams) at every wake: they end once their device is revoked (``RevokedTokens``).
  func stillSignedIn(_ request: Request) -> @Sendable () -> Bool {
    let token = (try? Self.token(request)) ?? nil ?? ""
    return { [revoked] in !revoked.isRevoked(token) }
  }

  /// The token `request` carries: its bearer token, else its session cookie's.
  static func token(_ request: Request) throws(SyncError) -> String? {
    if let header = request.headers[.authorization] {
      return header.hasPrefix("Bearer ") ? String(header.dropFirst(7)) : nil
    }
    return try WebSession.token(request)
  }

  /// The body decoded as `T`; `malformed` or `tooLarge` if it cannot be.
  func json<T: Decodable>(_ type: T.Type, from request: Request, limit: Int? = nil) async throws
    -> T
  {
    let body = try await request.body.collect(upTo: limit ?? maximumJSONBytes)
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch let error as DecodingError {
      throw SyncError(
        .malformed, "The request body is not a valid \(T.self): \(Self.describe(error)).")
    } catch {
      throw SyncError(.malformed, "The request body is not valid JSON.")
    }
  }

  /// The body of `request` as bytes, at most `limit` of them (`tooLarge` past it). Read into
  /// one array the size its `Content-Length` gives, fragment by fragment as they arrive, not
  /// collected into a buffer that doubles as it grows and then copied: an 8 MiB upload of
  /// chunks is 8 MiB of the server's memory, not up to 24.
  func bytes(of request: Request, limit: Int) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    if let length = request.headers[.contentLength].flatMap({ Int($0) }), length >= 0 {
      guard length <= limit else {
        throw SyncError(.tooLarge, "The request body is larger than the server accepts.")
      }
      bytes.reserveCapacity(length)
    }
    for try await fragment in request.body {
      guard fragment.readableBytes <= limit - bytes.count else {
        throw SyncError(.tooLarge, "The request body is larger than the server accepts.")
      }
      bytes.append(contentsOf: fragment.readableBytesView)
    }
    return bytes
  }

  /// The cursor in `since`, or in `Last-Event-ID` (an event stream resuming), or 0.
  func cursor(_ request: Request) throws(SyncError) -> Int64 {
    let text =
      request.headers[HTTPField.Name("Last-Event-ID")!]
      ?? request.uri.queryParameters["since"].map(String.init)
    guard let text else { return 0 }
    guard let cursor = Int64(text), cursor >= 0 else {
      throw SyncError(.malformed, "The cursor “\(text.prefix(40))” is not a journal position.")
    }
    return cursor
  }

  /// Whether the reader of the journal reads folders' moves as one entry each (`folderMoves=1`,
  /// as this release's agents ask); without it, each item a move took is an entry of its own.
  func readsFolderMoves(_ request: Request) -> Bool {
    request.uri.queryParameters["folderMoves"] == "1"
  }

  /// Whether the reader of a manifest takes changed members' chunk lists as edits of those it
  /// holds (`edits=1`, as this release's agents ask; ``ChunkListEdit``).
  func readsChunkEdits(_ request: Request) -> Bool {
    request.uri.queryParameters["edits"] == "1"
  }

  /// The page size in `limit`: 1000 unless asked, kept between 1 and 5000.
  func limit(_ request: Request) -> Int {
    min(max(Int(request.uri.queryParameters["limit"] ?? "1000") ?? 1000, 1), 5000)
  }

  /// The revision in the path and the optional `since` revision of a manifest request;
  /// `malformed` if either is not a number.
  func revisions(_ request: Request, _ context: ServerRequestContext) throws
    -> (revision: Int64, since: Int64?)
  {
    guard let revision = Int64(try context.parameters.require("revision")) else {
      throw SyncError(.malformed, "A revision is a number.")
    }
    let since = try request.uri.queryParameters["since"].map { text throws(SyncError) in
      guard let value = Int64(text) else {
        throw SyncError(.malformed, "since is a revision number.")
      }
      return value
    }
    return (revision, since)
  }

  /// A batch of manifests asked for; `tooLarge` past ``ManifestBatch/maximumCount``, and
  /// `malformed` if it names a revision twice (one revision repeated a thousand times would
  /// make the answer a thousand times the manifest).
  func manifestBatch(_ request: Request) async throws -> ManifestBatch {
    let batch = try await json(ManifestBatch.self, from: request)
    guard batch.revisions.count <= ManifestBatch.maximumCount else {
      throw SyncError(
        .tooLarge, "A batch asks for at most \(ManifestBatch.maximumCount) manifests; split it.")
    }
    guard Set(batch.revisions).count == batch.revisions.count else {
      throw SyncError(.malformed, "A batch names a revision twice; ask for each once.")
    }
    return batch
  }

  /// A batch of commits; `tooLarge` past ``CommitBatch/maximumCount``.
  func commitBatch(_ request: Request) async throws -> CommitBatch {
    let batch = try await json(CommitBatch.self, from: request)
    guard batch.commits.count <= CommitBatch.maximumCount else {
      throw SyncError(
        .tooLarge, "A batch holds at most \(CommitBatch.maximumCount) commits; split it.")
    }
    return batch
  }

  /// The chunks a fetch asks for, each once; `tooLarge` past 1024 (what a device asks for at
  /// once: an answer of at most 256 MiB).
  func chunkFetch(_ request: Request) async throws -> [ContentHash] {
    let list = try await json(ChunkList.self, from: request)
    guard list.hashes.count <= Self.maximumFetch else {
      throw SyncError(
        .tooLarge,
        "Fetch at most \(Self.maximumFetch) chunks per request, not \(list.hashes.count).")
    }
    var seen = Set<ContentHash>()
    return list.hashes.filter { seen.insert($0).inserted }
  }

  /// The most chunks one fetch may ask for.
  static let maximumFetch = 1024

  static func describe(_ error: DecodingError) -> String {
    switch error {
    case .keyNotFound(let key, _): "the field “\(key.stringValue)” is missing"
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      (context.codingPath.map(\.stringValue).joined(separator: ".") + " " + context.debugDescription)
        .trimmingCharacters(in: .whitespaces)
    @unknown default: "\(error)"
    }
  }
}
