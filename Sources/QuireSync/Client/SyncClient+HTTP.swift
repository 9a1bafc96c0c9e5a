import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import QuireSyncProtocol

extension SyncClient {
  /// Sends `json` (if any) and decodes the answer as `T`.
  func send<T: Decodable>(
    _ method: HTTPMethod, _ path: String, json: (some Encodable)? = nil as String?,
    authorized: Bool = true
  ) async throws(SyncError) -> T {
    let body = try json.map { value throws(SyncError) in try Self.encode(value) }
    let bytes = try await raw(method, path, body: body, limit: 256 << 20, authorized: authorized)
    do {
      return try JSONDecoder().decode(T.self, from: Data(bytes))
    } catch {
      throw SyncError(.internalError, "The server's answer to \(path) could not be read: \(error).")
    }
  }

  /// One request; the answer's bytes, or the server's error as a ``SyncError``.
  func raw(
    _ method: HTTPMethod, _ path: String, body: [UInt8]?, limit: Int, authorized: Bool = true
  ) async throws(SyncError) -> [UInt8] {
    let response: HTTPClientResponse
    let bytes: ByteBuffer
    do {
      var request = HTTPClientRequest(url: server.absoluteString + path)
      request.method = method
      if authorized { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
      if let body {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: body))
      }
      response = try await http.execute(request, timeout: .seconds(60))
      bytes = try await response.body.collect(upTo: limit)
    } catch {
      if "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
        throw SyncError(
          .unavailable,
          "The Quire server at \(server.absoluteString) has a certificate this device does not trust. Sign in with --ca-file and the server's certificate, or give the server a trusted one.",
          cause: error)
      }
      throw SyncError(
        .unavailable,
        "Could not reach the Quire server at \(server.absoluteString): \(error). Check that it runs and the address is right.",
        cause: error)
    }
    guard (200..<300).contains(response.status.code) else {
      throw Self.serverError(Array(buffer: bytes), status: Int(response.status.code))
    }
    return Array(buffer: bytes)
  }

  static func encode(_ value: some Encodable) throws(SyncError) -> [UInt8] {
    do { return Array(try JSONEncoder().encode(value)) } catch {
      throw SyncError(.internalError, "A request could not be encoded: \(error).")
    }
  }

  static func serverError(_ body: [UInt8], status: Int) -> SyncError {
    struct Envelope: Decodable { var error: SyncError }
    if let envelope = try? JSONDecoder().decode(Envelope.self, from: Data(body)) {
      return envelope.error
    }
    return SyncError(
      status >= 500 ? .unavailable : .malformed,
      "The server answered \(status) without an explanation.")
  }
}
