import Foundation
import Quire
import QuireSync

/// The library as the app sees it: a live ``DocumentQuery`` over the library folder, its latest
/// items grouped by folder, and the event streams (server-sent events) of the open pages.
actor LibraryFeed {
  let library: LibraryFolder
  private let query: DocumentQuery
  private var byFolder: [String: [DocumentQuery.Item]] = [:]
  private var all: [DocumentQuery.Item] = []
  private var byPath: [String: DocumentQuery.Item] = [:]
  private(set) var version = 0
  private var gathered = false
  private var waiting: [CheckedContinuation<Void, Never>] = []
  private var subscribers: [UUID: AsyncStream<String>.Continuation] = [:]

  init(library: LibraryFolder, registry: TypeRegistry, index: DocumentIndex?) {
    self.library = library
    query = DocumentQuery(
      scopes: [library.root], registry: registry, index: index,
      ubiquity: SyncStatusSource(folder: library.root))
  }

  /// Follows the query until the task is cancelled. Every 15 seconds the event streams carry a
  /// comment, so a page that went away is noticed (its write fails) even when nothing changes.
  func run() async {
    let keepalive = Task {
      while !Task.isCancelled {
        try? await Task.sleep(for: .seconds(15))
        broadcastComment()
      }
    }
    defer { keepalive.cancel() }
    for await results in query.results() {
      switch results.phase {
      case .gathering: continue
      case .gathered, .updated: apply(results)
      }
    }
  }

  /// Every item (waits for the first gather).
  func items() async -> [DocumentQuery.Item] {
    await gatheredOnce()
    return all
  }

  /// The items directly in the folder at `relative` (waits for the first gather).
  func items(in relative: String) async -> [DocumentQuery.Item] {
    await gatheredOnce()
    return byFolder[relative] ?? []
  }

  /// The item at `url`, if the query knows it.
  func item(at url: URL) async -> DocumentQuery.Item? {
    await gatheredOnce()
    return byPath[url.standardizedFileURL.path]
  }

  /// A stream of server-sent-event frames; it ends when the caller stops reading, or when the
  /// continuation returned with it finishes (the app shutting down).
  func subscribe() -> (frames: AsyncStream<String>, continuation: AsyncStream<String>.Continuation)
  {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let id = UUID()
    subscribers[id] = continuation
    continuation.yield("event: hello\ndata: {\"version\":\(version)}\n\n")
    continuation.onTermination = { _ in Task { await self.unsubscribe(id) } }
    return (stream, continuation)
  }

  /// Sends one event to every open page.
  func broadcast(event: String, json: String) {
    let frame = "event: \(event)\ndata: \(json)\n\n"
    for continuation in subscribers.values { continuation.yield(frame) }
  }

  private func unsubscribe(_ id: UUID) { subscribers[id] = nil }

  private func broadcastComment() {
    for continuation in subscribers.values { continuation.yield(": keepalive\n\n") }
  }

  /// The library-relative folder holding the item at `path` ("" for the top), by string
  /// slicing: this runs for every item on every update.
  private func parentFolder(of path: String) -> String {
    let utf8 = path.utf8
    guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
    let parent = path[..<slash]
    let root = library.root.path
    guard parent.count > root.count else { return "" }
    return String(parent.dropFirst(root.count + 1))
  }

  private func gatheredOnce() async {
    guard !gathered else { return }
    await withCheckedContinuation { waiting.append($0) }
  }

  private func apply(_ results: DocumentQuery.Results) {
    all = results.items
    var folders: [String: [DocumentQuery.Item]] = [:]
    var paths: [String: DocumentQuery.Item] = [:]
    paths.reserveCapacity(all.count)
    for item in all {
      paths[item.path] = item
      folders[parentFolder(of: item.path), default: []].append(item)
    }
    byFolder = folders
    byPath = paths
    version += 1
    for item in results.changed + results.removed {
      Task { await ThumbnailLoader.shared.invalidate(item.url) }
    }
    if !gathered {
      gathered = true
      for continuation in waiting { continuation.resume() }
      waiting = []
    }
    let changed =
      (results.added + results.changed + results.removed).map {
        library.relative($0.url)
      } + results.moved.map { library.relative($0.item.url) }
    let list = (try? String(decoding: JSONEncoder().encode(changed), as: UTF8.self)) ?? "[]"
    broadcast(event: "library", json: "{\"version\":\(version),\"paths\":\(list)}")
  }
}
