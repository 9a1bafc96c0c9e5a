extension QuireError {
  /// `error` itself if it is already a Quire error (it names the path and what to do), else an
  /// I/O error with `message` and `error` as its cause.
  package static func wrap(_ error: any Error, _ message: String, path: String) -> QuireError {
    if let error = error as? QuireError { return error }
    return QuireError(.ioError, message, path: path, cause: error)
  }
}
