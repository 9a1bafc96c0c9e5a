import Foundation

/// A public, read-only link to an item: anyone with its address can see the item's current
/// revision in a browser, without an account, until its owner revokes it.
public struct PublicLink: Codable, Sendable, Equatable {
  /// The link's secret part: the page is at `/s/{token}` on the server.
  public var token: String
  /// The item the link shows.
  public var item: String
  /// When the link was made, in seconds since 1970.
  public var created: Double

  /// A link with `token` to `item`, made at `created`.
  public init(token: String, item: String, created: Double) {
    self.token = token
    self.item = item
    self.created = created
  }

  /// The page's address on `server`.
  public func url(on server: URL) -> URL {
    server.appendingPathComponent("s").appendingPathComponent(token)
  }
}
