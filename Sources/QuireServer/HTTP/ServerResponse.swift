import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import QuireSyncProtocol

/// JSON answers, and errors as `{"error": {"code": …, "message": …}}` with their status.
enum ServerResponse {
  static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) -> Response {
    let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  static func bytes(_ bytes: [UInt8]) -> Response {
    Response(
      status: .ok, headers: [.contentType: "application/octet-stream"],
      body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
  }

  /// The bytes of `download` (its frames, or a file's contents) with `headers`, read a slice at
  /// a time as the answer is written (on the
  /// blocking pool: the body is written after the route has returned, outside its executor).
  /// A chunk that cannot be read part-way ends the answer short, which the client refuses.
  static func chunks(
    _ download: ChunkDownload, headers: HTTPFields = [.contentType: "application/octet-stream"]
  ) -> Response {
    Response(
      status: .ok, headers: headers,
      body: ResponseBody(contentLength: download.contentLength) { writer in
        try await withTaskExecutorPreference(BlockingExecutor.shared) {
          for slice in download.slices {
            try await writer.write(try download.buffer(of: slice))
          }
        }
        try await writer.finish(nil)
      })
  }

  static func error(_ error: SyncError) -> Response {
    var response = json(
      ["error": ["code": error.code.rawValue, "message": error.message]],
      status: .init(code: error.code.httpStatus))
    if error.code == .rateLimited { response.headers[.retryAfter] = "1" }
    return response
  }

  /// Any error a route threw, as a ``SyncError``.
  static func syncError(_ error: any Error) -> SyncError {
    if let error = error as? SyncError { return error }
    if error is NIOTooManyBytesError {
      return SyncError(.tooLarge, "The request body is larger than the server accepts.")
    }
    if error is HTTPParserError {  // the client's bytes, or its connection, ended mid-request
      return SyncError(
        .malformed, "The request could not be read: it was not HTTP, or it ended early.")
    }
    if let error = error as? HTTPError {
      switch error.status {
      case .notFound:
        return SyncError(.notFound, "There is no such endpoint; see docs/sync-api.yaml.")
      case .contentTooLarge:
        return SyncError(.tooLarge, "The request body is larger than the server accepts.")
      case .methodNotAllowed:
        return SyncError(.malformed, "That method is not allowed here; see docs/sync-api.yaml.")
      default: return SyncError(.malformed, error.body ?? "The request could not be read.")
      }
    }
    return SyncError(.internalError, "The server failed: \(error).", cause: error)
  }

  /// What a client is told of `error`: its own message for what the client can act on, and
  /// for the server's own failures (`internalError`, `unavailable`) a fixed message, the
  /// details (a database's text, a statement, a path) going to the log only.
  static func told(_ error: SyncError) -> SyncError {
    switch error.code {
    case .internalError:
      SyncServer.logger.error("\(error.message) (cause: \(String(describing: error.cause)))")
      return SyncError(.internalError, "The server failed. Its log says why; try again later.")
    case .unavailable:
      SyncServer.logger.warning("\(error.message) (cause: \(String(describing: error.cause)))")
      return SyncError(
        .unavailable, "The server could not finish this request just now. Try again.")
    default:
      return error
    }
  }
}

/// Answers every error a route throws as JSON with its code and message, never a trace or a
/// database's text (``ServerResponse/told(_:)``).
struct SyncErrorMiddleware<Context: RequestContext>: RouterMiddleware {
  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch {
      return ServerResponse.error(ServerResponse.told(ServerResponse.syncError(error)))
    }
  }
}
