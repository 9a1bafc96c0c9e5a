import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import QuireSyncProtocol

/// One bucket of S3-compatible object storage, path-style (`ENDPOINT/BUCKET/KEY`), with the few
/// calls the server's blob store needs: put (never over an existing object), ranged get,
/// delete and list.
///
/// The calls block their thread until the storage answers (or a minute passes): the server's
/// store is synchronous, as its SQLite transactions are, and a text merge reads chunks inside
/// one. HTTP itself goes through async-http-client; only the signing is hand-written
/// (``SigV4Signer``).
struct S3Bucket: Sendable {
  /// An object a listing found.
  struct Object: Sendable {
    var key: String
    var size: Int
    var modified: Date
  }

  let endpoint: URL
  let name: String
  let signer: SigV4Signer
  let http: HTTPClient

  init(endpoint: URL, name: String, signer: SigV4Signer, http: HTTPClient = .shared) {
    self.endpoint = endpoint
    self.name = name
    self.signer = signer
    self.http = http
  }

  /// Creates the bucket unless it exists already.
  func create() throws(SyncError) {
    let answer = try send("PUT", key: nil, action: "create")
    guard
      (200..<300).contains(answer.status) || answer.code == "BucketAlreadyOwnedByYou"
        || answer.code == "BucketAlreadyExists"
    else { throw failure(answer, action: "create", key: nil) }
  }

  /// Stores `bytes` under `key`, refusing (`alreadyExists`) if an object has that key already.
  func put(_ key: String, _ bytes: [UInt8]) throws(SyncError) {
    let answer = try send(
      "PUT", key: key, headers: ["if-none-match": "*"], body: bytes, action: "store")
    if answer.status == 412 {
      throw SyncError(
        .alreadyExists,
        "The object storage holds “\(key)” already in bucket “\(name)”; nothing was replaced.")
    }
    guard (200..<300).contains(answer.status) else {
      throw failure(answer, action: "store", key: key)
    }
  }

  /// The bytes of `key`, or of `range` of them.
  func get(_ key: String, range: Range<Int>? = nil) throws(SyncError) -> [UInt8] {
    var headers: [String: String] = [:]
    if let range { headers["range"] = "bytes=\(range.lowerBound)-\(range.upperBound - 1)" }
    let answer = try send("GET", key: key, headers: headers, action: "read")
    guard (200..<300).contains(answer.status) else {
      throw failure(answer, action: "read", key: key)
    }
    if let range, answer.body.count != range.count {
      throw SyncError(
        .unavailable,
        "The object storage gave \(answer.body.count) bytes of “\(key)” for a range of \(range.count); its copy is damaged or shorter than the server recorded."
      )
    }
    return answer.body
  }

  /// Deletes `key` (nothing happens if it is gone already).
  func delete(_ key: String) throws(SyncError) {
    let answer = try send("DELETE", key: key, action: "delete")
    guard (200..<300).contains(answer.status) || answer.status == 404 else {
      throw failure(answer, action: "delete", key: key)
    }
  }

  /// Every object whose key starts with `prefix`, a page of a thousand per request.
  func list(prefix: String) throws(SyncError) -> [Object] {
    var objects: [Object] = []
    var token: String?
    repeat {
      var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix)]
      if let token { query.append(("continuation-token", token)) }
      let answer = try send("GET", key: nil, query: query, action: "list")
      guard (200..<300).contains(answer.status) else {
        throw failure(answer, action: "list", key: prefix)
      }
      let page = S3ListingParser.parse(answer.body)
      objects += page.objects
      token = page.truncated ? page.nextToken : nil
    } while token != nil
    return objects
  }

  private struct Answer {
    var status: Int
    var body: [UInt8]
    /// The error code of an S3 error body (`AccessDenied`, `SignatureDoesNotMatch`…).
    var code: String? {
      let text = String(decoding: body, as: UTF8.self)
      guard let start = text.range(of: "<Code>"), let end = text.range(of: "</Code>"),
        start.upperBound <= end.lowerBound
      else { return nil }
      return String(text[start.upperBound..<end.lowerBound])
    }
  }

  private func send(
    _ method: String, key: String?, query: [(name: String, value: String)] = [],
    headers: [String: String] = [:], body: [UInt8] = [], action: String
  ) throws(SyncError) -> Answer {
    let path = "/" + name + (key.map { "/" + $0 } ?? "")
    var host = endpoint.host ?? "localhost"
    if let port = endpoint.port { host += ":\(port)" }
    var signed = headers
    signed["host"] = host
    let payloadHash =
      body.isEmpty ? SigV4Signer.emptyPayloadHash : SigV4Signer.hex(SHA256.hash(data: body))
    signed.merge(
      signer.sign(
        method: method, path: path, query: query, headers: signed, payloadHash: payloadHash,
        date: Date()),
      uniquingKeysWith: { $1 })
    let queryText = query.map { SigV4Signer.encode($0.name) + "=" + SigV4Signer.encode($0.value) }
      .joined(separator: "&")
    let base = "\(endpoint.scheme ?? "http")://\(host)"
    let url = base + SigV4Signer.encodePath(path) + (queryText.isEmpty ? "" : "?" + queryText)
    do {
      let request = try HTTPClient.Request(
        url: url, method: HTTPMethod(rawValue: method), headers: HTTPHeaders(Array(signed)),
        body: body.isEmpty ? nil : .bytes(body))
      let response = try http.execute(request: request, deadline: .now() + .seconds(60)).wait()
      return Answer(
        status: Int(response.status.code),
        body: response.body.map { Array($0.readableBytesView) } ?? [])
    } catch {
      throw SyncError(
        .unavailable,
        "The object storage at \(base) could not be reached to \(action) \(key.map { "“\($0)”" } ?? "bucket “\(name)”"): \(error). Nothing was stored half; try again when it answers.",
        cause: error)
    }
  }

  private func failure(_ answer: Answer, action: String, key: String?) -> SyncError {
    let code = answer.code ?? "HTTP \(answer.status)"
    let what = key.map { "“\($0)” in bucket “\(name)”" } ?? "bucket “\(name)”"
    let hint =
      answer.status == 403
      ? "Check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY and the key's rights on the bucket."
      : "Try again; if it persists, check the object storage."
    return SyncError(
      .unavailable, "The object storage refused to \(action) \(what) (\(code)). \(hint)")
  }
}
