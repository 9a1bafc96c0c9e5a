import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import QuireSyncProtocol
import QuireWeb

/// The drive on the web, the icloud.com role: `quire server` serves a page at `/` where an
/// account signs in with its password and browses, uploads, downloads, previews and deletes in
/// its drive, and sees what others share with it. The page reads and writes through `/dav/`
/// with its session (``WebSession``), so every rule of the WebDAV drive (commits, locks, shares,
/// limits) holds for it as for any client, and follows the drive's journal at `/web/events`
/// to show a device's change without a reload.
///
/// The page is the shared front end's (``WebAssets``): the app's stylesheet and look, with the
/// drive's own HTML and script. Every answer here carries the app's Content-Security-Policy.
struct WebDrive: Sendable {
  let store: ServerStore
  let configuration: ServerConfiguration
  let reading: RequestReading
  let signal: JournalSignal
  let signIn: PasswordSignIn

  /// The drive's files: its page and script, and the shared stylesheet, icon and helpers.
  static let assets = WebAssets(bundling: nil) {
    [
      "drive.html", "drive.js", "drive-manage.js", "drive-move.js", "api.js", "progress.js",
      "style.css", "icon.svg",
    ].contains($0)
  }

  func add(to router: Router<ServerRequestContext>) {
    router.get("/") { request, _ in Self.secured(Self.asset("drive.html", request)) }
    router.get("/web/:asset") { request, context in
      Self.secured(Self.asset(try context.parameters.require("asset"), request))
    }
    router.post("/web/session") { request, context in
      Self.secured(try await startSession(request, peer: context.peer))
    }
    router.get("/web/session") { request, _ in
      let device = try signedIn(request)
      let name = try store.accounts.accountName(device.user) ?? ""
      return Self.secured(ServerResponse.json(["user": name]))
    }
    router.delete("/web/session") { request, context in
      let device = try signedIn(request)
      try store.accounts.revoke(device: device.id)
      var response = Response(status: .noContent)
      response.headers[.setCookie] = WebSession.setCookie(
        nil, secure: secure(request, peer: context.peer))
      return Self.secured(response)
    }
    router.get("/web/trash") { request, _ in
      let device = try signedIn(request)
      return Self.secured(
        ServerResponse.json(
          try store.commits.trash(
            container: DAVStore.container, user: device.user, scope: DAVPath.drive.prefix,
            limit: 1000)))
    }
    router.get("/web/events") { request, _ in
      let device = try signedIn(request)
      let container = DAVStore.container
      let start =
        request.headers[HTTPField.Name("Last-Event-ID")!] == nil
        ? try store.commits.journalHead(container: container, user: device.user)
        : try reading.cursor(request)
      return EventStream(
        store: store, reading: reading, signal: signal, configuration: configuration
      ).journal(of: container, device: device, from: start, request: request)
    }
  }

  /// Whether the server speaks TLS itself.
  private var tls: Bool { configuration.tlsCertificate != nil }

  /// Whether the session cookie is marked `Secure`: when the server speaks TLS, or when the
  /// TLS proxy in front of it (on this machine, the only peer whose headers are taken) says
  /// the browser came over HTTPS (`X-Forwarded-Proto: https`).
  private func secure(_ request: Request, peer: String) -> Bool {
    tls
      || (ConnectionGuard.isLoopback(peer)
        && request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https")
  }

  /// The device of the session `request` carries; `unauthorized` without a live one.
  private func signedIn(_ request: Request) throws(SyncError) -> AuthenticatedDevice {
    guard let token = try WebSession.token(request),
      let device = try store.accounts.device(token: token)
    else {
      throw SyncError(.unauthorized, "Sign in to see your drive.")
    }
    return device
  }

  /// `POST /web/session` with `{"user", "password"}`: a new session, in its cookie. The
  /// password is taken over TLS or from this machine only, as WebDAV's Basic sign-in is.
  private func startSession(_ request: Request, peer: String) async throws -> Response {
    guard DAVRoutes.takesPasswords(tls: tls, peer: peer) else {
      throw SyncError(
        .forbidden,
        "This server has no TLS, so it takes no password from another machine. Start it with --tls-cert and --tls-key, or put an HTTPS proxy in front."
      )
    }
    if let origin = request.headers[.origin], let host = request.head.authority,
      origin != "http://\(host)", origin != "https://\(host)"
    {
      throw SyncError(.forbidden, "Sign in from the drive's own page.")
    }
    struct Credentials: Decodable {
      var user: String
      var password: String
    }
    let credentials = try await reading.json(Credentials.self, from: request, limit: 4096)
    switch try await signIn.signIn(
      user: credentials.user, password: credentials.password, device: WebSession.deviceName,
      lifetime: configuration.webSessionLifetime, peer: peer)
    {
    case .refused(let response):
      return response
    case .signedIn(let answer):
      var response = ServerResponse.json(["user": answer.user])
      response.headers[.setCookie] = WebSession.setCookie(
        answer.token, secure: secure(request, peer: peer))
      return response
    }
  }

  private static func asset(_ name: String, _ request: Request) -> Response {
    assets.response(name, request)
      ?? ServerResponse.error(SyncError(.notFound, "There is no page “\(name)”."))
  }

  /// `response` with the front end's security headers (``WebAssets/secured(_:)``).
  static func secured(_ response: Response) -> Response { WebAssets.secured(response) }
}
