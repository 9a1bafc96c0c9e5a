import Foundation
import Hummingbird
import Quire

/// Quick Look's text: `api/preview?path=` gives the first ``maximumBytes`` of a text document,
/// or of a MyDoc's text, read in a coordinated read, as `{"text": …}`; `api/previews` gives the
/// first ``thumbnailBytes`` of many, for the grid's thumbnails. A document kept in the cloud is
/// not read (a read would download it): its preview is its thumbnail alone.
struct PreviewRoutes: Sendable {
  let feed: LibraryFeed
  let library: LibraryFolder

  /// The most bytes of text a preview shows: its first page, not the document.
  static let maximumBytes = 16 << 10

  /// The most bytes of each text `api/previews` gives: a thumbnail's first lines, not a page.
  static let thumbnailBytes = 2 << 10

  /// The most documents one `api/previews` request names: a chunk of the browser's grid.
  static let maximumPaths = 500

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/preview") { request, _ in await api { try await preview(request) } }
    // The first lines of many texts at once, for the thumbnails of the browser's grid: one
    // request for the notes of a chunk that comes into view, not one per note.
    router.post("api/previews") { request, context in
      await api {
        let body = try await request.decode(as: PreviewsRequest.self, context: context)
        return try await previews(body.paths)
      }
    }
  }

  /// The body of `api/previews`.
  struct PreviewsRequest: Decodable {
    let paths: [String]
  }

  private func preview(_ request: Request) async throws -> Response {
    let url = try library.url(String(request.uri.queryParameters["path"] ?? ""))
    guard let item = await feed.item(at: url), !item.isFolder else {
      return APIResponse.error(.notFound, code: "noPreview", "There is no document here.")
    }
    let text = item.isPlaceholder ? "" : try Self.text(of: url, bytes: Self.maximumBytes)
    return APIResponse.json(["text": text])
  }

  /// `{"texts": {path: text}}`: the first lines of each text document or MyDoc the paths name.
  /// A path that names nothing of the kind, or a document kept in the cloud, is left out.
  private func previews(_ paths: [String]) async throws -> Response {
    guard paths.count <= Self.maximumPaths else {
      return APIResponse.error(
        .badRequest, code: "tooManyPaths",
        "Ask for the previews of at most \(Self.maximumPaths) documents at a time.")
    }
    var texts: [String: String] = [:]
    for path in Set(paths) {
      guard let url = try? library.url(path), let item = await feed.item(at: url),
        !item.isFolder, !item.isPlaceholder,
        let text = try? Self.text(of: url, bytes: Self.thumbnailBytes)
      else { continue }
      texts[path] = text
    }
    return APIResponse.json(["texts": texts])
  }

  /// The first `bytes` of the text of a text document or a MyDoc, read in a coordinated read;
  /// empty for any other kind.
  private static func text(of url: URL, bytes: Int) throws -> String {
    var text = ""
    try FileCoordinator().coordinate(readingItemAt: url) { url in
      let file: URL
      switch SampleDocuments.Kind(url: url) {
      case .text: file = url
      case .mydoc: file = url.appendingPathComponent("text.txt")
      default: return
      }
      guard let handle = try? FileHandle(forReadingFrom: file) else { return }
      defer { try? handle.close() }
      let head = try handle.read(upToCount: bytes) ?? Data()
      text = String(decoding: head, as: UTF8.self)
    }
    return text
  }
}
