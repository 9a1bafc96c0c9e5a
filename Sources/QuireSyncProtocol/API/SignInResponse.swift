/// The answer to ``SignInRequest``: the device's identifier and its token, shown this once (the
/// server keeps only its hash). Every other request carries it as `Authorization: Bearer TOKEN`.
public struct SignInResponse: Codable, Sendable {
  /// The device's identifier, for `quire server revoke`.
  public var device: String
  /// The secret token.
  public var token: String
  /// The account name.
  public var user: String

  /// An answer for `device` of `user`.
  public init(device: String, token: String, user: String) {
    self.device = device
    self.token = token
    self.user = user
  }
}
