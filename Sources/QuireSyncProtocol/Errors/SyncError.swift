/// The error Quire Sync's server answers with and its clients throw: a ``code`` to branch on and a
/// ``message`` for a person that says what was wrong and what to do.
///
/// Over HTTP it travels as `{"error": {"code": "…", "message": "…"}}` with a 4xx or 5xx status
/// (``Code/httpStatus``).
public struct SyncError: Error, Codable, Sendable, CustomStringConvertible {
  /// What went wrong, as a value to compare against.
  public var code: Code
  /// A sentence for a person: what was refused and what to do.
  public var message: String
  /// The underlying error, when there is one (never sent over the wire).
  public var cause: (any Error)?

  /// An error with `code` and `message`.
  public init(_ code: Code, _ message: String, cause: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.cause = cause
  }

  /// The message, after the code.
  public var description: String { "\(code): \(message)" }

  private enum CodingKeys: String, CodingKey { case code, message }

  /// Decodes the code and the message.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    code = try container.decode(Code.self, forKey: .code)
    message = try container.decode(String.self, forKey: .message)
  }

  /// Encodes the code and the message.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    try container.encode(message, forKey: .message)
  }
}
