import Foundation
import HTTPTypes
import Hummingbird
import QuireSyncProtocol

/// The page itself: the HTML, CSS and JavaScript in the package's `Resources/web`, read once and
/// served from memory (only these names: nothing else of the disk is reachable). The page's
/// scripts are served as one ``ScriptBundle``; each stays reachable under its own name too.
///
/// Each file carries an entity tag (its content hash): the browser asks again on every load
/// (`no-cache`), and a file it already has is answered `304 Not Modified` without its bytes, so
/// Chromium also keeps the scripts it compiled.
struct WebAssets: Sendable {
  private let files: [String: (type: String, data: Data)]
  private let tags: [String: String]

  init() {
    var files: [String: (String, Data)] = [:]
    let types = [
      "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
      "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
    ]
    if let folder = Bundle.module.url(forResource: "web", withExtension: nil),
      let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path)
    {
      for name in names {
        guard let type = types[(name as NSString).pathExtension],
          let data = try? Data(contentsOf: folder.appendingPathComponent(name))
        else { continue }
        files[name] = (type, data)
      }
    }
    if let page = files["index.html"] {
      let bundle = ScriptBundle(html: String(decoding: page.1, as: UTF8.self)) { name in
        files[name].map { String(decoding: $0.1, as: UTF8.self) }
      }
      files["index.html"] = (page.0, Data(bundle.html.utf8))
      files[ScriptBundle.name] = (types["js"]!, Data(bundle.script.utf8))
    }
    self.files = files
    tags = files.mapValues { "\"\(ContentHash(of: $0.1).hex.prefix(32))\"" }
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("/") { request, _ in serve("index.html", request) }
    router.get("/:asset") { request, context in
      serve(context.parameters.get("asset") ?? "", request)
    }
  }

  /// The bytes served under `name`, if any.
  func asset(_ name: String) -> Data? { files[name]?.data }

  private func serve(_ name: String, _ request: Request) -> Response {
    guard let file = files[name], let tag = tags[name] else {
      return APIResponse.error(.notFound, code: "notFound", "There is no page “\(name)”.")
    }
    let headers: HTTPFields = [.contentType: file.type, .cacheControl: "no-cache", .eTag: tag]
    if Self.matches(request.headers[.ifNoneMatch], tag) {
      return Response(status: .notModified, headers: headers)
    }
    return Response(
      status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
  }

  /// Whether an `If-None-Match` field names `tag` (or is `*`): RFC 9110 §13.1.2, by weak
  /// comparison, as a GET is.
  static func matches(_ field: String?, _ tag: String) -> Bool {
    guard let field else { return false }
    return field.split(separator: ",").contains { candidate in
      var candidate = candidate.trimmingCharacters(in: .whitespaces)
      if candidate == "*" { return true }
      if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
      return candidate == tag
    }
  }
}
