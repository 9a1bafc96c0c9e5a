import Foundation
import Hummingbird
import Quire
import QuireSyncProtocol

/// JSON responses of the app's API, and errors the page can show.
enum APIResponse {
  static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .millisecondsSince1970
    let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
    return Response(
      status: status, headers: [.contentType: "application/json; charset=utf-8"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  /// `{"error": {"code": …, "message": …}}`: a message the user can act on, never a trace.
  static func error(_ status: HTTPResponse.Status, code: String, _ message: String) -> Response {
    json(["error": ["code": code, "message": message]], status: status)
  }

  /// The response for an error thrown by a route.
  static func error(_ error: any Error) -> Response {
    if let error = error as? HTTPError {
      return self.error(
        error.status, code: "badRequest", error.body ?? "The request could not be read.")
    }
    if let error = error as? SyncError {  // the sync server's (or the agent's) own code
      return self.error(
        .init(code: error.code.httpStatus), code: error.code.rawValue, error.message)
    }
    guard let error = error as? QuireError else {
      return self.error(.internalServerError, code: "internalError", "\(error)")
    }
    let status: HTTPResponse.Status
    switch error.code {
    case .notFound: status = .notFound
    case .alreadyExists: status = .conflict
    case .permissionDenied, .readOnlyFileSystem: status = .forbidden
    case .invalidName, .wrongKind, .unknownType, .corruptArchive, .unsafeArchive,
      .corruptPackage:
      status = .badRequest
    case .archiveTooLarge, .limitReached: status = .contentTooLarge
    case .notDownloaded: status = .serviceUnavailable
    default: status = .internalServerError
    }
    return self.error(status, code: "\(error.code)", error.message)
  }
}
