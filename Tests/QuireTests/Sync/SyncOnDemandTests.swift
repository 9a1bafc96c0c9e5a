import Foundation
import Quire
import QuireApp
import QuireSync
import Testing

/// A device that downloads on demand (as an iPhone does): documents added elsewhere arrive as
/// placeholders, which `DocumentQuery` lists as not downloaded, and a coordinated read — any
/// program's `quire show`, a `Document.open` — downloads them.
@Suite("Downloads on demand", .timeLimit(.minutes(4)))
struct SyncOnDemandTests {
  @Test(
    "a new document is a placeholder on B, listed as not downloaded; a read downloads it; evict brings the placeholder back"
  )
  func placeholderReadEvict() async throws {
    let (server, _, a, b) = try Self.devices()
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    try a.write("hello from A", to: "Notes/Hello.txt")
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Notes/Hello.txt"), "no placeholder on B")
    #expect(!b.exists("Notes/Hello.txt"))

    // Other programs see a hidden file; a query sees the document, not downloaded.
    let query = DocumentQuery(
      scopes: [b.folder], index: nil,
      ubiquity: SyncStatusSource(
        folder: b.folder, stateFile: b.stateFile, settingsFile: b.settingsFile))
    let listed = try #require(
      await query.results().first { $0.phase != .gathering(found: 0) }?.items
        .first { $0.name == "Hello.txt" })
    #expect(listed.downloadingStatus == .notDownloaded)
    #expect(listed.percentDownloaded == 0)
    #expect(listed.size == Int64("hello from A".utf8.count))
    #expect(listed.isUbiquitous && listed.isUploaded)
    #expect(
      DocumentQuery.Predicate.downloadingStatus(.notDownloaded).evaluate(
        listed, registry: TypeRegistry()))

    // quire show is a coordinated read: the agent downloads the document first.
    let shown = try b.quire(["show", b.url("Notes/Hello.txt").path])
    #expect(shown.status == 0, "\(shown.stderr)")
    #expect(shown.stdout.contains("hello from A"))
    #expect(b.text("Notes/Hello.txt") == "hello from A")
    #expect(CloudPlaceholder.find(for: b.url("Notes/Hello.txt")) == nil)
    #expect(
      !FileManager.default.fileExists(
        atPath: CloudPlaceholder.url(for: b.url("Notes/Hello.txt")).path))

    // Evict is refused while the document is open in an app.
    let presenter = RecordingPresenter(b.url("Notes/Hello.txt"))
    try FileCoordinator.addFilePresenter(presenter)
    let refused = try b.quire(["sync", "evict", b.url("Notes/Hello.txt").path])
    FileCoordinator.removeFilePresenter(presenter)
    #expect(refused.status != 0)
    #expect(refused.stderr.contains("open in an app"), "\(refused.stderr)")
    #expect(b.text("Notes/Hello.txt") == "hello from A")

    // A file outside any synced folder: refused, kept.
    let outside = b.home.url.appendingPathComponent("outside.txt")
    try Data("mine".utf8).write(to: outside)
    let nowhere = try b.quire(["sync", "evict", outside.path])
    #expect(nowhere.status != 0)
    #expect(nowhere.stderr.contains("No sync agent removed the download"), "\(nowhere.stderr)")
    #expect(FileManager.default.contents(atPath: outside.path) == Data("mine".utf8))

    // Evicted: the placeholder again, and the document stays on the server and on A.
    let evicted = try b.quire(["sync", "evict", b.url("Notes/Hello.txt").path])
    #expect(evicted.status == 0, "\(evicted.stderr)")
    #expect(b.isPlaceholder("Notes/Hello.txt"))
    // Two markers in turn: a deletion B wrongly sent with the first would reach A first.
    for marker in ["one", "two"] {
      try b.write(marker, to: "marker-\(marker).txt")
      try SyncDevice.sync(b, a)
      #expect(a.text("marker-\(marker).txt") == marker)
    }
    #expect(a.text("Notes/Hello.txt") == "hello from A")
    #expect(b.isPlaceholder("Notes/Hello.txt"))

    // A change on A updates the placeholder; quire sync download brings the new text. (The new
    // text is longer than the old, so the placeholder's size tells the change has arrived.)
    let changed = "changed on A, and longer"
    try a.write(changed, to: "Notes/Hello.txt")
    try SyncDevice.sync(a, b)
    #expect(CloudPlaceholder.find(for: b.url("Notes/Hello.txt"))?.size == Int64(changed.utf8.count))
    let downloaded = try b.quire(["sync", "download", b.url("Notes/Hello.txt").path])
    #expect(downloaded.status == 0, "\(downloaded.stderr)")
    #expect(b.text("Notes/Hello.txt") == changed)
  }

  @Test("a rename, a move and a deletion on A apply to B's placeholder")
  func placeholderFollowsRemoteChanges() async throws {
    let (server, _, a, b) = try Self.devices()
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    try a.write("draft", to: "Old.txt")
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Old.txt"))
    // A bookmark of the document in the cloud follows it as bookmarks of local documents do.
    let bookmark = try Bookmark(url: b.url("Old.txt"))
    #expect(try bookmark.resolve().url.path == b.url("Old.txt").path)
    try FileManager.default.createDirectory(
      at: a.url("Sub"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: a.url("Old.txt"), to: a.url("Sub/New.txt"))
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Sub/New.txt") && !b.isPlaceholder("Old.txt"))
    #expect(!b.exists("Sub/New.txt"))
    let moved = try bookmark.resolve(searching: [b.folder])
    #expect(moved.url.path == b.url("Sub/New.txt").path)
    #expect(moved.isStale)
    try FileManager.default.removeItem(at: a.url("Sub/New.txt"))
    try SyncDevice.sync(a, b)
    #expect(!b.isPlaceholder("Sub/New.txt"))
    #expect(!b.exists("Sub/New.txt"))
    #expect(try b.hiddenLeftovers().isEmpty)

    // The policy changed to all in the settings (as the app's setting does): the running agent
    // downloads what it kept in the cloud.
    try a.write("kept", to: "Kept.txt")
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Kept.txt"))
    var settings = try #require(try SyncSettings.load(from: b.settingsFile))
    #expect(settings.downloadPolicy(for: b.folder) == .onDemand(downloadingUnder: 0))
    settings.setDownloadPolicy(.all, for: b.folder)
    try settings.save(to: b.settingsFile)
    #expect(await eventually { b.text("Kept.txt") == "kept" })
    #expect(!b.isPlaceholder("Kept.txt"))
    #expect(try b.report().download == "all")
    #expect(try b.report().inCloud == 0)
  }

  @Test(
    "opening a package in the cloud downloads it; with the server down the read fails, typed, and a retry works"
  )
  @MainActor
  func openDownloadsAndFailsCleanly() async throws {
    let (server, _, a, b) = try await onThread { try Self.devices() }
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><text>Trip</text></svg>"
    // Made outside the folder and moved in whole, so it arrives as one revision.
    let staging = a.home.url.appendingPathComponent("Trip.mydoc")
    try FileManager.default.createDirectory(
      at: staging.appendingPathComponent("QuickLook"), withIntermediateDirectories: true)
    try Data(svg.utf8).write(to: staging.appendingPathComponent("QuickLook/Thumbnail.svg"))
    try Data("trip notes".utf8).write(to: staging.appendingPathComponent("text.txt"))
    try FileManager.default.moveItem(at: staging, to: a.url("Trip.mydoc"))
    try a.write("second", to: "Second.mydoc/text.txt")
    try await SyncDevice.syncOffMain(a, b)
    #expect(b.isPlaceholder("Trip.mydoc") && b.isPlaceholder("Second.mydoc"))
    #expect(CloudPlaceholder.find(for: b.url("Trip.mydoc"))?.isPackage == true)

    // Its thumbnail is promised before its bytes.
    let thumbnails = ThumbnailLoader(
      cache: ThumbnailCache(folder: b.home.url.appendingPathComponent("thumbnails")))
    #expect(await thumbnails.thumbnail(for: b.url("Trip.mydoc")) == .svg(svg))
    #expect(!b.exists("Trip.mydoc"))

    let document = MyDocDocument(fileURL: b.url("Trip.mydoc"))
    try await document.open()
    #expect(document.text == "trip notes")
    #expect(b.text("Trip.mydoc/text.txt") == "trip notes")
    try await document.close()

    // The server is gone: the read fails with a typed error and the placeholder stays.
    server.kill()
    let failing = MyDocDocument(fileURL: b.url("Second.mydoc"))
    do {
      try await failing.open()
      Issue.record("opened a document whose bytes could not be downloaded")
    } catch {
      #expect(error.code == .notDownloaded, "\(error)")
      #expect(error.message.contains("Second.mydoc"))
    }
    #expect(b.isPlaceholder("Second.mydoc"))
    #expect(try b.hiddenLeftovers().isEmpty)

    // Back: the same read works.
    try server.restart()
    let again = MyDocDocument(fileURL: b.url("Second.mydoc"))
    try await again.open()
    #expect(again.text == "second")
    try await again.close()
  }

  @Test(
    "a large download reports its progress to the waiting reader and to the query, and spools to disk"
  )
  func downloadProgress() async throws {
    let (server, proxy, a, b) = try Self.devices(proxied: true)
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    let toB = try #require(proxy)
    let bytes = SyncTestSupport.random(40 << 20, seed: 13)
    try Data(bytes).write(to: a.url("Large.bin"), options: .atomic)
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Large.bin"))

    let query = DocumentQuery(
      scopes: [b.folder], index: nil,
      ubiquity: SyncStatusSource(
        folder: b.folder, stateFile: b.stateFile, settingsFile: b.settingsFile))
    let seen = Collector<[DocumentQuery.Item]>()
    let following = Task {
      for await results in query.results() { await seen.append(results.items) }
    }
    defer { following.cancel() }

    // The proxy holds B's download part way: the reader and the query see it part done.
    toB.hold(down: toB.bytes.down + (20 << 20))
    let (reading, reported) = Self.read(b.url("Large.bin"), total: bytes.count)
    let partial = await seen.wait(seconds: 60) { values in
      values.last?.first { $0.name == "Large.bin" }.map {
        $0.isDownloading && $0.percentDownloaded > 0 && $0.percentDownloaded < 100
      } ?? false
    }
    #expect(partial.last?.first { $0.name == "Large.bin" }?.downloadingStatus == .notDownloaded)
    let midway = await reported.wait(seconds: 60) { !$0.isEmpty }
    #expect(midway.allSatisfy { $0 > 0 && $0 < Int64(bytes.count) })
    // Spooled to disk, in a file with no name: nothing shows in the folder.
    #expect(!(try b.unnamedOpenFiles().isEmpty), "a 40 MiB download should spool to disk")
    #expect(try b.hiddenLeftovers().isEmpty)
    toB.release()
    #expect(try await reading.value == bytes.count)
    let finished = await reported.wait(seconds: 60) { $0.last == Int64(bytes.count) }
    #expect(finished.last == Int64(bytes.count))
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == Data(bytes))
    let done = await seen.wait(seconds: 60) { values in
      values.last?.first { $0.name == "Large.bin" }?.downloadingStatus == .current
    }
    #expect(done.last?.first { $0.name == "Large.bin" }?.percentDownloaded == 100)
    let leftovers = try b.hiddenLeftovers()
    #expect(leftovers.isEmpty, "\(leftovers)")
  }

  @Test(
    "a download cut off midway leaves the placeholder, no partial file and a typed error; a retry completes from where it was cut"
  )
  func downloadCutMidway() async throws {
    let (server, proxy, a, b) = try Self.devices(proxied: true)
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    let toB = try #require(proxy)
    let bytes = SyncTestSupport.random(48 << 20, seed: 17)
    try Data(bytes).write(to: a.url("Movie.bin"), options: .atomic)
    try SyncDevice.sync(a, b)
    #expect(b.isPlaceholder("Movie.bin"))

    // A fetch asks for 4 MiB of chunks and a chunk more at most (4.25 MiB), two are on their
    // way at once, and they are written in order. Let through 12 MiB, the first fetch and the
    // two after it could share the rest, neither whole: only 4 MiB would be written. With
    // 16 MiB, the first three fit whole whatever the interleaving, so the first two are written
    // (8 MiB at least) and the rest is held at the proxy. That stays on B.
    toB.hold(down: toB.bytes.down + (16 << 20))
    let movie = b.url("Movie.bin")
    let (reading, reported) = Self.read(movie, total: bytes.count)
    let arrived = await reported.wait(seconds: 60) { ($0.max() ?? 0) >= 8 << 20 }
    #expect((arrived.max() ?? 0) >= 8 << 20, "8 MiB arrived before the cut: \(arrived)")
    toB.cut()
    do {
      _ = try await reading.value
      Issue.record("a read whose download was cut off succeeded")
    } catch let error as QuireError {
      #expect(error.code == .notDownloaded, "\(error)")
    }
    #expect(b.isPlaceholder("Movie.bin"))
    #expect(try b.hiddenLeftovers().isEmpty, "a spool or partial file was left")
    #expect(try b.report().items.contains { $0.path == "Movie.bin" && $0.state == .downloadError })

    toB.release()
    toB.restore()
    let before = toB.bytes.down
    let again = try await FileCoordinator().coordinate(with: [.readingIntent(with: movie)]) {
      urls in try Data(contentsOf: urls[0])
    }
    #expect(again == Data(bytes))
    // The chunks that arrived before the cut (8 MiB at least) are not fetched again.
    let retried = toB.bytes.down - before
    #expect(retried < bytes.count - (4 << 20), "the retry fetched \(retried) bytes again")
    #expect(!b.isPlaceholder("Movie.bin"))
    #expect(try b.hiddenLeftovers().isEmpty)
  }

  /// A server, device A (downloading everything) and device B (on demand, through a proxy when
  /// `proxied`), both running.
  static func devices(proxied: Bool = false) throws -> (
    SyncServerProcess, NetworkProxy?, SyncDevice, SyncDevice
  ) {
    let server = try SyncServerProcess()
    let proxy = proxied ? try NetworkProxy(to: server.url.port!) : nil
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server, via: proxy)
    try a.start()
    try b.start(["--download", "on-demand"])
    return (server, proxy, a, b)
  }

  /// A coordinated read of the whole file at `url` (of `total` bytes) in a task, and the
  /// download progress it hears.
  static func read(_ url: URL, total: Int) -> (Task<Int, any Error>, Collector<Int64>) {
    let reported = Collector<Int64>()
    let coordinator = FileCoordinator(downloadTimeout: .seconds(120)) { completed, all in
      #expect(all == Int64(total))
      Task { await reported.append(completed) }
    }
    let reading = Task { @Sendable in
      try await coordinator.coordinate(with: [.readingIntent(with: url)]) { urls in
        try Data(contentsOf: urls[0]).count
      }
    }
    return (reading, reported)
  }
}
