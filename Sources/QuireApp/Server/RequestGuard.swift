import Foundation
import HTTPTypes
import Hummingbird
import QuireWeb

/// The safety rules of a local web app, checked before any route runs:
/// - the Host header must name this server on loopback (a DNS-rebinding page names its own host);
/// - an Origin header, when present, must be this server (a cross-site form or fetch is refused);
/// - the per-run token must come with the request: as `?token=` (which sets a cookie and
///   redirects to the same address without it), as the `quire_token_PORT` cookie, or as an
///   `X-Quire-Token` header. Cookies are not scoped by port, so the name carries the port: two
///   apps on two ports never overwrite or take each other's token;
/// - every response carries a Content-Security-Policy and no-sniff headers.
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
  let token: String
  let port: @Sendable () -> Int

  /// The token cookie's name for the app on `port`.
  static func cookieName(port: Int) -> String { "quire_token_\(port)" }
  static var tokenHeader: HTTPField.Name { HTTPField.Name("X-Quire-Token")! }

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let port = self.port()
    let allowedHosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    guard let host = request.head.authority, allowedHosts.contains(host)
    else {
      return Self.secured(
        APIResponse.error(
          .misdirectedRequest, code: "foreignHost", "This server answers only to 127.0.0.1:\(port)."
        ))
    }
    if let origin = request.headers[.origin],
      !allowedHosts.contains(where: { origin == "http://" + $0 })
    {
      return Self.secured(
        APIResponse.error(
          .forbidden, code: "foreignOrigin", "Requests from other sites are refused."))
    }
    if let given = request.uri.queryParameters["token"] {
      guard Self.same(String(given), token) else { return Self.secured(Self.refused()) }
      // Trade the token in the address for a cookie, and drop it from the address bar.
      var response = Response.redirect(to: request.uri.path)
      response.headers[.setCookie] =
        "\(Self.cookieName(port: port))=\(token); Path=/; HttpOnly; SameSite=Strict"
      return Self.secured(response)
    }
    let presented =
      request.cookies[Self.cookieName(port: port)]?.value ?? request.headers[Self.tokenHeader]
    guard let presented, Self.same(presented, token) else { return Self.secured(Self.refused()) }
    return Self.secured(try await next(request, context))
  }

  private static func refused() -> Response {
    APIResponse.error(
      .unauthorized, code: "noToken",
      "This page needs the address with its token, as printed by `quire app`.")
  }

  /// Compares in constant time.
  private static func same(_ a: String, _ b: String) -> Bool {
    let (x, y) = (Array(a.utf8), Array(b.utf8))
    guard x.count == y.count else { return false }
    return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
  }

  private static func secured(_ response: Response) -> Response { WebAssets.secured(response) }
}
