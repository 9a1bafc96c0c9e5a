/// A list of shares: an item's participants (`GET …/items/{item}/shares`), or the items shared
/// with the signed-in account (`GET /v1/shares`).
public struct ShareList: Codable, Sendable, Equatable {
  /// The shares, oldest first.
  public var shares: [ShareInfo]

  /// A list of `shares`.
  public init(shares: [ShareInfo]) { self.shares = shares }
}
