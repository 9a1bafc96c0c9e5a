import Foundation
import GRDB
import Testing

@testable import Quire
@testable import QuireApp

@Suite("The persistent document index", .timeLimit(.minutes(2)))
struct DocumentIndexTests {
  /// Runs a query of `scope` on `index` and returns its gathered report and the iterator for
  /// the updates after it.
  static func gather(_ scope: URL, index: DocumentIndex?) async throws
    -> (DocumentQuery.Results, AsyncStream<DocumentQuery.Results>.Iterator, DocumentQuery)
  {
    let registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)
    let query = DocumentQuery(scopes: [scope], registry: registry, index: index)
    guard
      let (gathered, iterator) = await nextResults(
        query.results().makeAsyncIterator(), until: { $0.phase == .gathered })
    else { throw QuireError(.timedOut, "no gather of \(scope.path)") }
    return (gathered, iterator, query)
  }

  /// Runs one query of `scope` on a new index at `url` in another process, which exits once the
  /// index is written: as a program that ran before would have left it, with nothing of its
  /// query still writing.
  static func writeIndex(of scope: URL, to url: URL) async throws {
    let before = try HelperProcess(["index-once", scope.path, url.path])
    #expect(before.lines.nextLine() == "indexed")
    #expect(before.wait() == 0)
  }

  /// Writes `a.txt` into `folder` and indexes it into `state`'s index.sqlite (in a program that
  /// has exited); returns the index's location.
  static func indexedFolder(_ folder: TemporaryDirectory, _ state: TemporaryDirectory)
    async throws -> URL
  {
    try Disk.write("a", to: folder.file("a.txt"))
    let indexURL = state.file("index.sqlite")
    try await writeIndex(of: folder.url, to: indexURL)
    return indexURL
  }

  /// The names of what is in `folder` (not hidden), as a sorted list.
  static func namesOnDisk(_ folder: URL) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder.path)
      .filter { !$0.hasPrefix(".") }.sorted()
  }

  @Test("a restarted query shows the indexed items at once, then reconciles with the disk")
  func restartReconciles() async throws {
    let folder = try TemporaryDirectory()
    let state = try TemporaryDirectory()
    try Disk.write("a", to: folder.file("a.txt"))
    try Disk.write("b", to: folder.file("Old/b.txt"))
    try Disk.write("t", to: folder.file("Doc.mydoc/text.txt"))
    let indexURL = state.file("index.sqlite")
    try await Self.writeIndex(of: folder.url, to: indexURL)
    // While no query runs: one file goes, one comes, one changes, one is tagged (which changes
    // neither its size nor its modification time).
    try FileManager.default.removeItem(at: folder.file("Old"))
    try Disk.write("new", to: folder.file("new.txt"))
    try Disk.write("a, longer", to: folder.file("a.txt"))
    try Tags.setTags(["work"], of: folder.file("Doc.mydoc"))

    let index = try DocumentIndex(url: indexURL)  // a new process would open it like this
    let (gathered, iterator, _) = try await Self.gather(folder.url, index: index)
    // The gather is the index's view: it cannot know yet what happened while nothing ran.
    #expect(gathered.items.map(\.name) == ["a.txt", "b.txt", "Doc.mydoc", "Old"])
    guard
      let (update, _) = await nextResults(iterator, until: { $0.phase == .updated })
    else {
      Issue.record("no reconciling update")
      return
    }
    #expect(update.items.map(\.name) == ["a.txt", "Doc.mydoc", "new.txt"])
    #expect(Set(update.removed.map(\.name)) == ["Old", "b.txt"])
    #expect(update.added.map(\.name) == ["new.txt"])
    #expect(Set(update.changed.map(\.name)) == ["a.txt", "Doc.mydoc"])
    #expect(update.items.first { $0.name == "Doc.mydoc" }?.tags == ["work"])
    #expect(update.items.first { $0.name == "a.txt" }?.size == 9)
  }

  @Test("a document's identity is kept in the index, which finds it after a move")
  func identityInIndex() async throws {
    let folder = try TemporaryDirectory()
    let state = try TemporaryDirectory()
    try Disk.write("t", to: folder.file("Doc.mydoc/text.txt"))
    let identity = try DocumentIdentity.identity(of: folder.file("Doc.mydoc"), creating: true)
    let bookmark = try Bookmark(url: folder.file("Doc.mydoc"))
    let index = try DocumentIndex(url: state.file("index.sqlite"))
    let (gathered, iterator, _) = try await Self.gather(folder.url, index: index)
    #expect(gathered.items.first?.identity == identity)
    let coordinator = FileCoordinator()
    try FileManager.default.createDirectory(
      at: folder.file("Elsewhere/Deeper"), withIntermediateDirectories: true)
    try await coordinator.coordinate(with: [
      .writingIntent(with: folder.file("Doc.mydoc"), options: .forMoving),
      .writingIntent(with: folder.file("Elsewhere/Deeper/Renamed.mydoc"), options: .forReplacing),
    ]) { urls in
      try FileManager.default.moveItem(at: urls[0], to: urls[1])
      coordinator.item(at: urls[0], didMoveTo: urls[1])
    }
    #expect(await nextResults(iterator, until: { !$0.moved.isEmpty }) != nil)
    await index.flush()
    let renamed = CoordinationRuntime.canonicalPath(folder.file("Elsewhere/Deeper/Renamed.mydoc"))
    #expect(index.paths(withIdentity: identity) == [renamed])
    // A bookmark made before finds the document through the index, without searching folders.
    let resolution = try bookmark.resolve(index: index)
    #expect(resolution.url.path == renamed && resolution.isStale)
  }

  @Test("a document in the cloud is indexed as one: a restarted query shows it not downloaded")
  func placeholdersAreIndexed() async throws {
    let folder = try TemporaryDirectory()
    let state = try TemporaryDirectory()
    try Disk.write("a", to: folder.file("a.txt"))
    try CloudPlaceholder(
      name: "Cloud.txt", isPackage: false, size: 12, identity: "cloud-1", revision: 3,
      modified: Date(timeIntervalSince1970: 1_700_000_000)
    ).write(for: folder.file("Cloud.txt"))
    let indexURL = state.file("index.sqlite")
    try await Self.writeIndex(of: folder.url, to: indexURL)

    let index = try DocumentIndex(url: indexURL)  // as a new process opens it
    let scope = CoordinationRuntime.canonicalPath(folder.url)
    let indexed = try #require(await index.items(under: scope))
    let cloud = try #require(indexed.first { $0.name == "Cloud.txt" })
    #expect(cloud.isPlaceholder && cloud.size == 12 && cloud.identity == "cloud-1")
    #expect(indexed.first { $0.name == "a.txt" }?.isPlaceholder == false)
    let (gathered, _, _) = try await Self.gather(folder.url, index: index)
    #expect(gathered.items.first { $0.name == "Cloud.txt" }?.downloadingStatus == .notDownloaded)
  }

  @Test("a deleted index is made again from the disk")
  func deletedIndexIsRebuilt() async throws {
    let (folder, state) = (try TemporaryDirectory(), try TemporaryDirectory())
    let indexURL = try await Self.indexedFolder(folder, state)
    for suffix in ["", "-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: indexURL.path + suffix)
    }
    try Disk.write("b", to: folder.file("b.txt"))
    let index = try DocumentIndex(url: indexURL)
    let (gathered, _, _) = try await Self.gather(folder.url, index: index)
    #expect(gathered.items.map(\.name) == ["a.txt", "b.txt"])
    await index.flush()
    let scope = CoordinationRuntime.canonicalPath(folder.url)
    #expect(await index.items(under: scope)?.map(\.name).sorted() == ["a.txt", "b.txt"])
  }

  @Test("a damaged index is set aside and rebuilt, and the query still finds everything")
  func damagedIndexIsRebuilt() async throws {
    let (folder, state) = (try TemporaryDirectory(), try TemporaryDirectory())
    let indexURL = try await Self.indexedFolder(folder, state)
    for suffix in ["-wal", "-shm"] {
      try? FileManager.default.removeItem(atPath: indexURL.path + suffix)
    }
    try Data(repeating: 0x5A, count: 8192).write(to: indexURL)
    let index = try DocumentIndex(url: indexURL)
    let (gathered, _, _) = try await Self.gather(folder.url, index: index)
    #expect(gathered.items.map(\.name) == ["a.txt"])
    #expect(FileManager.default.fileExists(atPath: indexURL.path + ".damaged"))
    await index.flush()
    #expect(await index.verify())
  }

  @Test("SIGKILL while the index is being written leaves a sound index that reconciles")
  func sigkillMidUpdate() async throws {
    let folder = try TemporaryDirectory()
    let state = try TemporaryDirectory()
    for number in 0..<200 { try Disk.write("\(number)", to: folder.file("seed-\(number).txt")) }
    let indexURL = state.file("index.sqlite")
    for round in 0..<3 {
      let helper = try HelperProcess(["index-churn", folder.url.path, indexURL.path])
      // Let it write for a while (a different number of reports each round), then kill it.
      let wanted = "indexed \(10 * (round + 1))"
      var line = helper.lines.nextLine()
      while let seen = line, seen != wanted { line = helper.lines.nextLine() }
      #expect(line == wanted, "round \(round): the helper stopped before \(wanted)")
      helper.kill()
    }
    let index = try DocumentIndex(url: indexURL)
    #expect(await index.verify(), "the index is damaged after SIGKILL")
    let (gathered, iterator, _) = try await Self.gather(folder.url, index: index)
    var names = gathered.items.map(\.name).sorted()
    let onDisk = try Self.namesOnDisk(folder.url)
    if names != onDisk {
      // What the killed process had not yet written arrives with the reconcile.
      names =
        await nextResults(iterator, until: { $0.phase == .updated })?.0.items.map(\.name)
        .sorted() ?? []
    }
    #expect(names == onDisk)
  }

  @Test("an index another program keeps busy is waited for, then reported, never set aside")
  func busyIndexIsKept() async throws {
    let (folder, state) = (try TemporaryDirectory(), try TemporaryDirectory())
    let indexURL = try await Self.indexedFolder(folder, state)
    // Another connection holds the write lock for the whole test, as a busy writer would. With
    // the log checkpointed, opening the index must write (GRDB starts the log), so must wait.
    var unsafe = Configuration()
    unsafe.allowsUnsafeTransactions = true
    let writer = try DatabaseQueue(path: indexURL.path, configuration: unsafe)
    try await writer.writeWithoutTransaction { db in
      try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
      try db.execute(sql: "BEGIN IMMEDIATE")
    }
    let error = #expect(throws: QuireError.self) {
      try DocumentIndex(url: indexURL, busyTimeout: 0.2)
    }
    #expect(error?.code == .timedOut && error?.message.contains(indexURL.path) == true)
    // An index opened at its first use (as the shared one is) finds it busy the same way: not
    // there for now, and kept.
    let lazy = DocumentIndex(unopenedAt: indexURL, busyTimeout: 0.2)
    let scope = CoordinationRuntime.canonicalPath(folder.url)
    #expect(await lazy.items(under: scope) == nil)
    #expect(!FileManager.default.fileExists(atPath: indexURL.path + ".damaged"))
    try await writer.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    #expect(await lazy.items(under: scope)?.map(\.name) == ["a.txt"])
    // Once the writer is done, the index opens as it was: nothing was lost to the wait.
    let index = try DocumentIndex(url: indexURL, busyTimeout: 0.2)
    #expect(await index.items(under: scope)?.map(\.name) == ["a.txt"])
  }
}
