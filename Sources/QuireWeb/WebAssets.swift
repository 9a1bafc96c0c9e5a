import Foundation
import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// The HTML, CSS and JavaScript in this package's `Resources/web`, shared by the Quire app
/// (`quire app`) and the web drive of `quire server`: one stylesheet and one look. They are
/// read once and served from memory (only the names chosen: nothing else of the disk is
/// reachable). A page's deferred scripts are served as one ``ScriptBundle``; each stays
/// reachable under its own name too.
///
/// Each file carries an entity tag (its content hash): the browser asks again on every load
/// (`no-cache`), and a file it already has is answered `304 Not Modified` without its bytes, so
/// Chromium also keeps the scripts it compiled.
public struct WebAssets: Sendable {
  private let files: [String: (type: String, data: Data)]
  private let tags: [String: String]

  /// The files whose names `serves` accepts; the page `bundling` (if it is among them) has its
  /// deferred scripts served as one ``ScriptBundle/name``.
  public init(bundling page: String?, serves: (String) -> Bool) {
    var files: [String: (String, Data)] = [:]
    let types = [
      "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
      "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
    ]
    if let folder = Bundle.module.url(forResource: "web", withExtension: nil),
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
    {
      for name in names where serves(name) {
        guard let type = types[(name as NSString).pathExtension],
          let data = try? Data(contentsOf: folder.appendingPathComponent(name))
        else { continue }
        files[name] = (type, data)
      }
    }
    if let page, let html = files[page] {
      let bundle = ScriptBundle(html: String(decoding: html.1, as: UTF8.self)) { name in
        files[name].map { String(decoding: $0.1, as: UTF8.self) }
      }
      files[page] = (html.0, Data(bundle.html.utf8))
      files[ScriptBundle.name] = (types["js"]!, Data(bundle.script.utf8))
    }
    self.files = files
    tags = files.mapValues { "\"\(ContentHash(of: $0.1).hex.prefix(32))\"" }
  }

  /// The bytes served under `name`, if any.
  public func asset(_ name: String) -> Data? { files[name]?.data }

  /// The answer to a GET of `name`: its bytes with its entity tag, `304 Not Modified` if the
  /// request already has them, or nil if there is no such file.
  public func response(_ name: String, _ request: Request) -> Response? {
    guard let file = files[name], let tag = tags[name] else { return nil }
    let headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-cache", .eTag: tag]
    if Self.matches(request.headers[.ifNoneMatch], tag) {
      return Response(status: .notModified, headers: headers)
    }
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
  }

  /// `response` with the headers every answer of a page of this front end carries (the app's
  /// and the web drive's alike): a Content-Security-Policy that runs only the server's own
  /// scripts and styles, and no sniffing, no referrer and no framing.
  public static func secured(_ response: Response) -> Response {
    var response = response
    response.headers[.contentSecurityPolicy] =
      "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; "
      + "connect-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; "
      + "form-action 'self'"
    response.headers[.xContentTypeOptions] = "nosniff"
    response.headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    response.headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
    return response
  }

  /// Whether an `If-None-Match` field names `tag` (or is `*`): RFC 9110 §13.1.2, by weak
  /// comparison, as a GET is.
  public static func matches(_ field: String?, _ tag: String) -> Bool {
    guard let field else { return false }
    return field.split(separator: ",").contains { candidate in
      var candidate = candidate.trimmingCharacters(in: .whitespaces)
      if candidate == "*" { return true }
      if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
      return candidate == tag
    }
  }
}
