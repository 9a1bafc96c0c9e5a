import Foundation
import Hummingbird
import Quire

/// The SimpleiCloudDocument sample's API: its list of documents (from ``SimpleDocumentsFeed``),
/// each with whether it is in conflict, and the sample's Conflicts button, which settles a
/// conflict by keeping the latest version
/// (``SimpleiCloudDocument/resolveConflictsKeepingLatest(at:)``). Changes to the list reach the
/// pages as `sicd` events.
struct SimpleDocumentsRoutes: Sendable {
  let library: LibraryFolder
  let feed: SimpleDocumentsFeed

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/sicd") { _, _ in
      await api { APIResponse.json(["documents": await feed.documents()]) }
    }
    router.post("api/sicd/resolve") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.url(body["path"] ?? "")
        guard SampleDocuments.Kind(url: url) == .sicd else {
          throw QuireError(
            .wrongKind, "“\(url.lastPathComponent)” is not a SimpleiCloudDocument (.sicd).",
            path: url.path)
        }
        let resolved = try await SimpleiCloudDocument.resolveConflictsKeepingLatest(at: url)
        return APIResponse.json(["resolved": resolved])
      }
    }
  }
}
