import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// The host names a server answers to, as Nextcloud's `trusted_domains`: with any configured, a
/// request whose `Host` names another is refused before any route runs. A page that DNS
/// rebinding has pointed at the server names its own host, so it reaches no route, not even
/// sign-in. The loopback names always pass, so the machine's own admin keeps a way in. With
/// none configured, every `Host` is answered (a server's public name is not known unless told).
struct TrustedHosts: Sendable {
  /// The configured names, lower-cased, without a port, brackets or a trailing dot; empty: no
  /// check.
  let names: Set<String>

  private static let loopback: Set<String> = ["localhost", "127.0.0.1", "::1"]

  /// The names `names` give, read as a `Host` is (`drive.example:8443` is `drive.example`,
  /// `[2001:db8::1]` is `2001:db8::1`), and a bare IPv6 address as it is.
  init(_ names: [String]) {
    self.names = Set(
      names.map { name in
        name.filter { $0 == ":" }.count > 1 && !name.hasPrefix("[")
          ? Self.normalised(name) : Self.hostName(name)
      })
  }

  /// The first of `names` that names no host (empty, or a port alone); nil if all do.
  static func invalid(_ names: [String]) -> String? {
    names.first { TrustedHosts([$0]).names.contains("") }
  }

  /// Whether a request with this `Host` (`name`, `name:port`, `[v6]` or `[v6]:port`) is for
  /// this server. A missing or empty `Host` is not, when names are configured.
  func allows(_ authority: String?) -> Bool {
    guard !names.isEmpty else { return true }
    guard let name = authority.map(Self.hostName), !name.isEmpty else { return false }
    return names.contains(name) || Self.loopback.contains(name)
  }

  /// The host of an authority, without its port and brackets, lower-cased.
  static func hostName(_ authority: String) -> String {
    var text = Substring(authority)
    if text.hasPrefix("[") {
      guard let close = text.firstIndex(of: "]") else { return "" }
      let rest = text[text.index(after: close)...]
      guard rest.isEmpty || rest.first == ":" else { return "" }
      text = text[text.index(after: text.startIndex)..<close]
    } else if let colon = text.firstIndex(of: ":") {
      text = text[..<colon]
    }
    return normalised(String(text))
  }

  private static func normalised(_ name: String) -> String {
    var name = name.lowercased()
    while name.hasSuffix(".") { name.removeLast() }
    return name
  }
}

/// Refuses, as 421 `foreignHost`, every request whose `Host` the server's ``TrustedHosts`` do
/// not allow.
struct TrustedHostCheck<Context: RequestContext>: RouterMiddleware {
  let hosts: TrustedHosts

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard hosts.allows(request.head.authority) else {
      throw SyncError(
        .foreignHost,
        "This server answers only to \(hosts.names.sorted().joined(separator: ", ")); use that address, or have it started with --trusted-host NAME."
      )
    }
    return try await next(request, context)
  }
}
