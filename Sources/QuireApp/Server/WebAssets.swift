import Foundation
import Hummingbird

/// The page itself: the HTML, CSS and JavaScript in the package's `Resources/web`, read once and
/// served from memory (only these names: nothing else of the disk is reachable). The page's
/// scripts are served as one ``ScriptBundle``; each stays reachable under its own name too.
struct WebAssets: Sendable {
  private let files: [String: (type: String, data: Data)]

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
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("/") { _, _ in serve("index.html") }
    router.get("/:asset") { _, context in serve(context.parameters.get("asset") ?? "") }
  }

  /// The bytes served under `name`, if any.
  func asset(_ name: String) -> Data? { files[name]?.data }

  private func serve(_ name: String) -> Response {
    guard let file = files[name] else {
      return APIResponse.error(.notFound, code: "notFound", "There is no page “\(name)”.")
    }
    return Response(
      status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"],
      body: .init(byteBuffer: ByteBuffer(bytes: file.data)))
  }
}
