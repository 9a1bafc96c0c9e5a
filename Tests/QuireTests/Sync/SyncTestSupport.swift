import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSync
import QuireSyncProtocol

/// Building commits and sending raw requests in the sync tests.
enum SyncTestSupport {
  /// A package's members as manifest members, with their chunks uploaded through `client`.
  static func upload(_ members: [String: [UInt8]], with client: SyncClient) async throws
    -> [ManifestMember]
  {
    var result: [ManifestMember] = []
    var uploads: [(hash: ContentHash, bytes: [UInt8])] = []
    for (path, bytes) in members.sorted(by: { $0.key < $1.key }) {
      let contents = ChunkedContents(bytes)
      result.append(contents.member(path: path))
      uploads += contents.uploads
    }
    let missing = Set(try await client.missingChunks(uploads.map(\.hash)))
    try await client.upload(uploads.filter { missing.contains($0.hash) })
    return result
  }

  /// A commit with a fresh commit identifier.
  static func commit(
    _ item: String, path: String, base: Int64?, kind: ItemKind = .package,
    upserted: [ManifestMember] = [], removed: [String] = [], deleted: Bool = false
  ) -> CommitRequest {
    CommitRequest(
      commit: UUID().uuidString, item: item, kind: kind, path: path, base: base, deleted: deleted,
      change: ManifestChange(upserted: upserted, removed: removed))
  }

  /// The status and error code of a raw request.
  static func raw(
    _ method: HTTPMethod, _ url: String, token: String? = nil, body: [UInt8]? = nil,
    headers: [(String, String)] = []
  ) async throws -> (status: Int, code: String?) {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
    for (name, value) in headers { request.headers.add(name: name, value: value) }
    if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 1 << 20)
    struct Envelope: Decodable { var error: SyncError }
    let code = try? JSONDecoder().decode(Envelope.self, from: Data(buffer: bytes)).error.code
      .rawValue
    return (Int(response.status.code), code)
  }

  /// The JSON answer of a GET, decoded as `type`.
  static func get<T: Decodable>(_ url: String, token: String, as type: T.Type) async throws -> T {
    var request = HTTPClientRequest(url: url)
    request.headers.add(name: "Authorization", value: "Bearer \(token)")
    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
    let bytes = try await response.body.collect(upTo: 16 << 20)
    return try JSONDecoder().decode(type, from: Data(buffer: bytes))
  }

  static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

  /// `count` pseudo-random bytes from `seed` (the same for the same seed).
  static func random(_ count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
      state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return UInt8(truncatingIfNeeded: state >> 33)
    }
  }
}
