import Foundation
import Hummingbird
import Quire

/// The library's documents that are in the cloud (a device that downloads on demand): the
/// item menu's Download and Remove download, and one item's state for the editor's progress
/// bar while an open waits for its download.
struct CloudRoutes: Sendable {
  let library: LibraryFolder
  let feed: LibraryFeed

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/item") { request, _ in
      await api {
        let url = try library.url(String(request.uri.queryParameters["path"] ?? ""))
        guard let item = await feed.item(at: url) else {
          throw QuireError(.notFound, "“\(url.lastPathComponent)” is not in the library.")
        }
        return APIResponse.json(LibraryItem(item, library: library))
      }
    }
    router.post("api/download") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.url(body["path"] ?? "")
        guard CloudPlaceholder.find(for: url) != nil else {
          return APIResponse.json(["started": false])  // it is here already
        }
        // The agent downloads it; the library's live list shows the progress, then the item.
        Task.detached {
          try? await FileCoordinator().coordinate(with: [
            .readingIntent(with: url, options: .withoutChanges)
          ]) { _ in }
        }
        return APIResponse.json(["started": true])
      }
    }
    router.post("api/evict") { request, context in
      await api {
        let body = try await request.decode(as: [String: String].self, context: context)
        let url = try library.url(body["path"] ?? "")
        // A blocking call (it waits for the agent): off the cooperative pool.
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
          DispatchQueue.global().async {
            do {
              try FileCoordinator.evictItem(at: url)
              done.resume()
            } catch {
              done.resume(throwing: error)
            }
          }
        }
        return APIResponse.json(["evicted": true])
      }
    }
  }
}
