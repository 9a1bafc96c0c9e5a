import Foundation
import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// The web drive's sign-in: a device of the account (named "Web browser") whose token the
/// browser keeps in a cookie that scripts cannot read (`HttpOnly`), that no other site's page
/// sends (`SameSite=Strict`), and that crosses the network only inside TLS when the server has
/// it (`Secure`). Signing out revokes that device.
///
/// A request that changes anything (every method but GET, HEAD and OPTIONS) with the cookie
/// must also name the server itself as its `Origin`, which browsers send with every such
/// request: a page of another origin, even one that has the cookie, cannot write.
struct WebSession: Sendable {
  /// The cookie's name.
  static let cookie = "quire_session"
  /// The device name the account's device list shows for a browser's session.
  static let deviceName = "Web browser"

  /// The token `request` carries in its session cookie; nil without one. `forbidden` for a
  /// write whose Origin is missing or another site's.
  static func token(_ request: Request) throws(SyncError) -> String? {
    guard let token = request.cookies[cookie]?.value, !token.isEmpty else { return nil }
    switch request.method {
    case .get, .head, .options: return token
    default:
      guard let origin = request.headers[.origin], let host = request.head.authority,
        origin == "http://\(host)" || origin == "https://\(host)"
      else {
        throw SyncError(
          .forbidden,
          "A change to the drive through the browser's session must come from the drive's own page; reload it and try again."
        )
      }
      return token
    }
  }

  /// The `Set-Cookie` value that keeps `token` (or, with nil, forgets the session).
  static func setCookie(_ token: String?, secure: Bool) -> String {
    var value =
      "\(cookie)=\(token ?? ""); Path=/; HttpOnly; SameSite=Strict"
      + (token == nil ? "; Max-Age=0" : "")
    if secure { value += "; Secure" }
    return value
  }
}
