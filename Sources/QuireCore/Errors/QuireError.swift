/// The error every Quire library call throws.
///
/// It carries a ``code`` to branch on, a ``message`` written for a person (it names the path
/// and says what to do), the ``path`` concerned, and the underlying ``cause`` — usually a
/// ``SystemCallError``. New codes can be added without breaking callers.
public struct QuireError: Error, CustomStringConvertible {
  /// What went wrong, as a value to compare against.
  public var code: Code
  /// A sentence for a person: what failed, on which path, and what to do about it.
  public var message: String
  /// The file or folder the error is about, when there is one.
  public var path: String?
  /// The underlying error, such as the ``SystemCallError`` that made a save fail.
  public var cause: (any Error)?
  /// The source file in Quire that raised the error (for bug reports).
  public var file: String
  /// The source line in Quire that raised the error.
  public var line: Int

  /// Makes an error. Library code uses the factories; this is public so that apps can raise
  /// Quire errors from their own document subclasses.
  public init(
    _ code: Code, _ message: String, path: String? = nil, cause: (any Error)? = nil,
    file: String = #fileID, line: Int = #line
  ) {
    self.code = code
    self.message = message
    self.path = path
    self.cause = cause
    self.file = file
    self.line = line
  }

  /// The message, followed by the cause when there is one.
  public var description: String {
    guard let cause else { return message }
    return "\(message) (\(cause))"
  }
}
