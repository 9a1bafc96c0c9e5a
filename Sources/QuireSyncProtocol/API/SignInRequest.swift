/// `POST /v1/sign-in`: a device signs in once with the account's password and gets a token.
public struct SignInRequest: Codable, Sendable {
  /// The account name.
  public var user: String
  /// The account's password.
  public var password: String
  /// A name for the device, shown by `quire server devices` (such as the host name).
  public var device: String

  /// A request for `user` from the device named `device`.
  public init(user: String, password: String, device: String) {
    self.user = user
    self.password = password
    self.device = device
  }
}
