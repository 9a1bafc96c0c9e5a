import Foundation
import Quire
import QuireSync

/// The SimpleiCloudDocument sample's list of documents, found as the sample finds them: a
/// ``Quire/DocumentQuery`` over the container's Documents scope (the library, which the sync
/// agent mirrors), for `*.sicd`, sorted by name, batching live changes for 1 s, with each item's
/// sync status (so a document in conflict says so on every device).
actor SimpleDocumentsFeed {
  /// One document as the sample's list shows it.
  struct Entry: Encodable {
    var path: String
    var name: String
    var modified: Double
    var conflict: Bool
  }

  let library: LibraryFolder
  private let query: DocumentQuery
  private var entries: [Entry] = []
  private var gathered = false
  private var waiting: [CheckedContinuation<Void, Never>] = []
  private let changed: @Sendable () async -> Void

  /// A feed of `library`'s `.sicd` documents; `changed` runs after each batch of changes.
  init(
    library: LibraryFolder, registry: TypeRegistry,
    changed: @escaping @Sendable () async -> Void
  ) {
    self.library = library
    self.changed = changed
    query = DocumentQuery(
      scopes: [library.root], predicate: .nameLike("*.sicd"),
      sortDescriptors: [DocumentQuery.SortDescriptor(.name)],
      notificationBatchingInterval: .seconds(1),
      registry: registry, index: nil, ubiquity: SyncStatusSource(folder: library.root))
  }

  /// Follows the query until the task is cancelled.
  func run() async {
    for await results in query.results() {
      if case .gathering = results.phase { continue }
      entries = results.items.map {
        Entry(
          path: library.relative($0.url), name: $0.name,
          modified: $0.modificationDate.timeIntervalSince1970 * 1000,
          conflict: $0.hasUnresolvedConflicts)
      }
      if !gathered {
        gathered = true
        for continuation in waiting { continuation.resume() }
        waiting = []
      }
      await changed()
    }
  }

  /// The documents, sorted by name (waits for the first gather).
  func documents() async -> [Entry] {
    if !gathered { await withCheckedContinuation { waiting.append($0) } }
    return entries
  }
}
