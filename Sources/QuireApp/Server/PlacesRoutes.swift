import Foundation
import Hummingbird
import Quire
import QuireSync

/// The sidebar's places: `api/places` gives the library's top-level folders, the tags in use
/// and whether anything is shared with this account, from the live query (no disk walk).
struct PlacesRoutes: Sendable {
  let feed: LibraryFeed
  let library: LibraryFolder

  struct Places: Encodable {
    var folders: [String]
    var tags: [String]
    var shared: Bool
  }

  func add(to router: Router<BasicRequestContext>) {
    router.get("api/places") { _, _ in
      await api {
        let top = await feed.items(in: "")
        let folders = top.filter(\.isFolder).map(\.name)
        var tags = Set<String>()
        for item in await feed.items() { tags.formUnion(item.tags) }
        return APIResponse.json(
          Places(
            folders: folders.filter { $0 != SyncAgent.sharedFolderName },
            tags: tags.sorted { $0.localizedStandardCompare($1) == .orderedAscending },
            shared: folders.contains(SyncAgent.sharedFolderName)))
      }
    }
  }
}
