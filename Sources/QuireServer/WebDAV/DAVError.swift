import HTTPTypes
import QuireSyncProtocol

/// A WebDAV answer that is not a success: the HTTP status RFC 4918 asks for (409 for a missing
/// parent, 412 for a failed precondition, 423 for a lock…), with the same code and message as
/// the sync API's errors, and, for the few that need one, the precondition element RFC 4918
/// names (`propfind-finite-depth`, `lock-token-submitted`).
struct DAVError: Error {
  /// The status sent.
  var status: HTTPResponse.Status
  /// The code and message sent as JSON.
  var error: SyncError
  /// The `DAV:` precondition element, sent as an XML `error` body instead of JSON.
  var precondition: String?

  init(
    _ status: HTTPResponse.Status, _ code: SyncError.Code, _ message: String,
    precondition: String? = nil
  ) {
    self.status = status
    self.error = SyncError(code, message)
    self.precondition = precondition
  }

  /// The answer to `error`, a sync error from the store: its code's status, and for a lock
  /// (423) the precondition `lock-token-submitted`.
  init(_ error: SyncError) {
    self.status =
      error.code == .locked
      ? .init(code: 423, reasonPhrase: "Locked") : .init(code: error.code.httpStatus)
    self.error = error
    self.precondition = error.code == .locked ? "lock-token-submitted" : nil
  }

  /// 409: the parent collection of `path` does not exist (RFC 4918 §9.3.1, §9.7.1).
  static func noParent(_ path: DAVPath) -> DAVError {
    DAVError(
      .conflict, .notFound,
      "The folder that would hold “\(path)” does not exist. Make it first (MKCOL).")
  }

  /// 404: nothing is at `path`.
  static func notFound(_ path: DAVPath) -> DAVError {
    DAVError(.notFound, .notFound, "There is nothing at “\(path)” in this drive.")
  }

  /// 412: `path` exists and the client said not to overwrite it, or its If-Match failed.
  static func precondition(_ message: String) -> DAVError {
    DAVError(.preconditionFailed, .alreadyExists, message)
  }
}
