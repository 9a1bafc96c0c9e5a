import Foundation
import Hummingbird
import Quire

/// Quick Look's text: `api/preview?path=` gives the first ``maximumBytes`` of a text document,
/// or of a MyDoc's text, read in a coordinated read, as `{"text": …}`. A document kept in the
/// cloud is not read (a read would download it): its preview is its thumbnail alone.
struct PreviewRoutes: Sendable {
  let feed: LibraryFeed
  let library: LibraryFolder

  /// The most bytes of text a preview shows: its first page, not the document.
  static let maximumBytes = 16 << 10

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/preview") { request, _ in await api { try await preview(request) } }
  }

  private func preview(_ request: Request) async throws -> Response {
    let url = try library.url(String(request.uri.queryParameters["path"] ?? ""))
    guard let item = await feed.item(at: url), !item.isFolder else {
      return APIResponse.error(.notFound, code: "noPreview", "There is no document here.")
    }
    var text = ""
    if !item.isPlaceholder {
      try FileCoordinator().coordinate(readingItemAt: url) { url in
        let file: URL
        switch SampleDocuments.Kind(url: url) {
        case .text: file = url
        case .mydoc: file = url.appendingPathComponent("text.txt")
        default: return
        }
        guard let handle = try? FileHandle(forReadingFrom: file) else { return }
        defer { try? handle.close() }
        let head = try handle.read(upToCount: Self.maximumBytes) ?? Data()
        text = String(decoding: head, as: UTF8.self)
      }
    }
    return APIResponse.json(["text": text])
  }
}
