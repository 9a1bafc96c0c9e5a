/// Why a synced item could not be uploaded or downloaded: the error the sync agent recorded for
/// it (``DocumentQuery/Item/uploadingError``, ``DocumentQuery/Item/downloadingError``).
public struct UbiquityError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The agent's error code (`tooLarge`, `invalidPath`, …).
  public var code: String
  /// What went wrong and what to do, for a person.
  public var message: String

  /// An error with `code` and `message`.
  public init(code: String, message: String) {
    self.code = code
    self.message = message
  }

  /// The message.
  public var description: String { message }
}
