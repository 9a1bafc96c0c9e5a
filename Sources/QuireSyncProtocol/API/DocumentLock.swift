/// A write lock a WebDAV client holds on a document (or on a member of a package): while it
/// holds, the server keeps other writers' commits to what it covers as conflict versions.
public struct DocumentLock: Codable, Sendable, Equatable {
  /// Who holds it, as the client named its owner ("Word on Ana's laptop", an address), or
  /// "a WebDAV client" when it named none.
  public var owner: String
  /// When it ends unless its holder renews it, in seconds since 1970.
  public var expires: Double
  /// Whether it is exclusive (else shared with other shared locks).
  public var exclusive: Bool

  /// A lock held by `owner` until `expires`.
  public init(owner: String, expires: Double, exclusive: Bool) {
    self.owner = owner
    self.expires = expires
    self.exclusive = exclusive
  }
}
