import Foundation
import QuireSyncSimulation
import Testing

@testable import Quire
@testable import QuireApp

/// Reads query reports until one satisfies `done`, or nil after `seconds`.
func nextResults(
  _ iterator: AsyncStream<DocumentQuery.Results>.Iterator, seconds: Double = 60,
  until done: @escaping @Sendable (DocumentQuery.Results) -> Bool
) async -> (DocumentQuery.Results, AsyncStream<DocumentQuery.Results>.Iterator)? {
  nonisolated(unsafe) var iterator = iterator
  let found = try? await withDeadline(seconds: seconds) { () async -> DocumentQuery.Results? in
    while let results = await iterator.next() {
      if done(results) { return results }
    }
    return nil
  }
  guard let found, let found else { return nil }
  return (found, iterator)
}

@Suite("Document queries", .timeLimit(.minutes(2)))
struct DocumentQueryTests {
  static func registry() throws -> TypeRegistry {
    let registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)
    return registry
  }

  static func item(
    _ name: String, type: String = "public.data", size: Int64 = 0, tags: [String] = []
  )
    -> DocumentQuery.Item
  {
    DocumentQuery.Item(
      path: "/x/" + name, contentType: type, isFolder: false, size: size,
      creationDate: Date(timeIntervalSince1970: 0),
      modificationDate: Date(timeIntervalSince1970: 0),
      tags: tags)
  }

  @Test("predicates: wildcards ignore case, types conform, tags, sizes, and/or/not")
  func predicates() throws {
    let registry = try Self.registry()
    let doc = Self.item("Report.MyDoc", type: "net.gacha.mydoc", size: 10, tags: ["Work"])
    let image = Self.item("photo.png", type: "public.png", size: 5000)
    #expect(DocumentQuery.Predicate.nameLike("*.mydoc").evaluate(doc, registry: registry))
    #expect(DocumentQuery.Predicate.nameLike("rep?rt.*").evaluate(doc, registry: registry))
    #expect(!DocumentQuery.Predicate.nameLike("*.mydoc").evaluate(image, registry: registry))
    #expect(
      DocumentQuery.Predicate.conforms(to: "public.image").evaluate(image, registry: registry))
    #expect(!DocumentQuery.Predicate.conforms(to: "public.image").evaluate(doc, registry: registry))
    #expect(DocumentQuery.Predicate.tagged("work").evaluate(doc, registry: registry))
    let bigImages = DocumentQuery.Predicate.and([.conforms(to: "public.image"), .sizeAtLeast(1000)])
    #expect(bigImages.evaluate(image, registry: registry))
    #expect(
      DocumentQuery.Predicate.or([.tagged("none"), .not(.sizeAtLeast(100))]).evaluate(
        doc, registry: registry))
  }

  @Test("sorting: names in human order, then by date or size, ties broken by path")
  func sorting() {
    let items = [
      Self.item("Doc 10", size: 1), Self.item("doc 2", size: 3), Self.item("Doc 1", size: 3),
    ]
    let byName = items.sorted { DocumentQuery.precedes($0, $1, by: [.init(.name)]) }
    #expect(byName.map(\.name) == ["Doc 1", "doc 2", "Doc 10"])
    let bySize = items.sorted {
      DocumentQuery.precedes($0, $1, by: [.init(.size, ascending: false), .init(.name)])
    }
    #expect(bySize.map(\.name) == ["Doc 1", "doc 2", "Doc 10"])
  }

  @Test("the gather's keyed sort orders as the item comparison does, on generated items")
  func keyedSortMatchesComparison() {
    var random = SeededGenerator(seed: 30)
    let names = ["Doc 1", "doc 2", "Doc 10", "Doc 01", "Ärger", "a", "A", "b 9", "b 10", ""]
    for _ in 0..<300 {
      let items = (0..<Int.random(in: 0...40, using: &random)).map { index in
        DocumentQuery.Item(
          path: "/\(Int.random(in: 0...2, using: &random))/" + names.randomElement(using: &random)!,
          contentType: ["public.data", "public.text"].randomElement(using: &random)!,
          isFolder: false, size: Int64.random(in: 0...3, using: &random),
          creationDate: Date(timeIntervalSince1970: Double.random(in: 0...3, using: &random)),
          modificationDate: Date(
            timeIntervalSince1970: Double(Int.random(in: 0...3, using: &random))),
          tags: Bool.random(using: &random) ? [] : [["red", "blue"].randomElement(using: &random)!])
      }
      let descriptors = (0..<Int.random(in: 0...3, using: &random)).map { _ in
        DocumentQuery.SortDescriptor(
          DocumentQuery.SortKey.allCases.randomElement(using: &random)!,
          ascending: Bool.random(using: &random))
      }
      let expected = items.sorted { DocumentQuery.precedes($0, $1, by: descriptors) }
      #expect(DocumentQuery.order(of: items, by: descriptors).map { items[$0] } == expected)
    }
  }

  @Test("the gather lists documents and folders, packages as single items, then live updates")
  func gatherThenUpdates() async throws {
    let folder = try TemporaryDirectory()
    try Disk.write("a", to: folder.file("a.txt"))
    try Disk.write("t", to: folder.file("Doc.mydoc/text.txt"))
    try Disk.write("n", to: folder.file("Nested/deep/b.txt"))
    try Disk.write("hidden", to: folder.file(".hidden.txt"))
    let state = try TemporaryDirectory()
    let query = DocumentQuery(
      scopes: [folder.url], registry: try Self.registry(),
      index: try DocumentIndex(url: state.file("index.sqlite")))
    let stream = query.results()
    guard
      let (gathered, iterator) = await nextResults(
        stream.makeAsyncIterator(), until: { $0.phase == .gathered })
    else {
      Issue.record("no gather")
      return
    }
    let names = gathered.items.map(\.name)
    #expect(names == ["a.txt", "b.txt", "deep", "Doc.mydoc", "Nested"])
    #expect(gathered.items.first { $0.name == "Doc.mydoc" }?.contentType == "net.gacha.mydoc")

    // A coordinated create in another process reaches the query.
    try await runHelper(["coord-write", folder.file("created.txt").path, "new"])
    guard
      let (afterCreate, iterator2) = await nextResults(
        iterator, until: { $0.added.contains { $0.name == "created.txt" } })
    else {
      Issue.record("the coordinated create did not reach the query")
      return
    }
    #expect(afterCreate.items.contains { $0.name == "created.txt" })

    // A coordinated rename in another process is reported as a move.
    try await runHelper([
      "coord-move", folder.file("created.txt").path, folder.file("renamed.txt").path,
    ])
    guard
      let (afterMove, iterator3) = await nextResults(
        iterator2, until: { $0.moved.contains { $0.item.name == "renamed.txt" } })
    else {
      Issue.record("the coordinated move did not reach the query")
      return
    }
    #expect(!afterMove.items.contains { $0.name == "created.txt" })

    // A member written inside a package changes the package, and is not listed itself.
    try Disk.write("changed", to: folder.file("Doc.mydoc/text.txt"))
    try Disk.write("new member", to: folder.file("Doc.mydoc/extra.txt"))
    guard
      let (afterMember, iterator4) = await nextResults(
        iterator3, until: { $0.changed.contains { $0.name == "Doc.mydoc" } })
    else {
      Issue.record("a change inside the package did not reach the query")
      return
    }
    #expect(!afterMember.items.contains { $0.name == "extra.txt" })

    // A coordinated delete in this process removes the item.
    try await FileCoordinator().coordinate(with: [
      .writingIntent(with: folder.file("a.txt"), options: .forDeleting)
    ]) { urls in try FileManager.default.removeItem(at: urls[0]) }
    #expect(
      await nextResults(iterator4, until: { $0.removed.contains { $0.name == "a.txt" } }) != nil)
  }

  @Test("disabled updates accumulate and arrive as one batch when enabled")
  func disableUpdates() async throws {
    let folder = try TemporaryDirectory()
    let query = DocumentQuery(
      scopes: [folder.url], predicate: .nameLike("*.txt"), registry: try Self.registry(),
      index: nil)
    let stream = query.results()
    guard
      let (_, iterator) = await nextResults(
        stream.makeAsyncIterator(), until: { $0.phase == .gathered })
    else {
      Issue.record("no gather")
      return
    }
    await query.disableUpdates()
    await query.disableUpdates()
    for index in 0..<3 {
      try await FileCoordinator().coordinate(with: [
        .writingIntent(with: folder.file("f\(index).txt"))
      ]) { urls in try Disk.write("x", to: urls[0]) }
    }
    await query.waitForDeliveredChanges()
    await query.enableUpdates()
    try Disk.write("x", to: folder.file("ignored.png"))  // does not match: never reported
    await query.enableUpdates()
    guard let (batch, _) = await nextResults(iterator, until: { _ in true }) else {
      Issue.record("no batch after enabling")
      return
    }
    #expect(Set(batch.added.map(\.name)) == ["f0.txt", "f1.txt", "f2.txt"])
    #expect(batch.items.map(\.name) == ["f0.txt", "f1.txt", "f2.txt"])
  }
}
