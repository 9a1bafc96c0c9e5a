import Foundation
import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// Reading what a request carries: its device (from the bearer token) and its JSON body.
struct RequestReading: Sendable {
  let store: ServerStore
  let maximumJSONBytes: Int

  /// The device whose token the request carries; `unauthorized` without one, or with one that
  /// is unknown or revoked.
  func device(_ request: Request) throws(SyncError) -> AuthenticatedDevice {
    guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
      let device = try store.device(token: String(header.dropFirst(7)))
    else {
      throw SyncError(
        .unauthorized,
        "This request needs a valid device token. Sign in again with quire sync login.")
    }
    return device
  }

  /// The body decoded as `T`; `malformed` or `tooLarge` if it cannot be.
  func json<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
    let body = try await request.body.collect(upTo: maximumJSONBytes)
    do {
      return try JSONDecoder().decode(T.self, from: Data(buffer: body))
    } catch let error as DecodingError {
      throw SyncError(
        .malformed, "The request body is not a valid \(T.self): \(Self.describe(error)).")
    } catch {
      throw SyncError(.malformed, "The request body is not valid JSON.")
    }
  }

  /// The cursor in `since`, or in `Last-Event-ID` (an event stream resuming), or 0.
  func cursor(_ request: Request) throws(SyncError) -> Int64 {
    let text =
      request.uri.queryParameters["since"].map(String.init)
      ?? request.headers[HTTPField.Name("Last-Event-ID")!]
    guard let text else { return 0 }
    guard let cursor = Int64(text), cursor >= 0 else {
      throw SyncError(.malformed, "The cursor “\(text.prefix(40))” is not a journal position.")
    }
    return cursor
  }

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
