import Foundation
import Hummingbird
import QuireWeb

/// The app's page at `/`, and its styles and scripts by name: the shared ``WebAssets`` but the
/// web drive's own files (`drive*`), which only `quire server` serves.
struct AppPage: Sendable {
  let assets = WebAssets(bundling: "index.html") { !$0.hasPrefix("drive") }

  func add(to router: Router<BasicRequestContext>) {
    router.get("/") { request, _ in serve("index.html", request) }
    router.get("/:asset") { request, context in
      serve(context.parameters.get("asset") ?? "", request)
    }
  }

  private func serve(_ name: String, _ request: Request) -> Response {
    assets.response(name, request)
      ?? APIResponse.error(.notFound, code: "notFound", "There is no page “\(name)”.")
  }
}
