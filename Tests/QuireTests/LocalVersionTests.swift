import Foundation
import Synchronization
import Testing

@testable import Quire
@testable import QuireApp

/// Versions of documents that are not synced (`LocalVersionStore`): kept on each save, read,
/// restored, thinned with age, removed; their cost follows what a save changed.
@Suite("Local versions")
@MainActor
struct LocalVersionTests {
  /// A clock the test moves; thinning measures ages from it.
  final class Now: Sendable {
    let date = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
    var value: Date { date.withLock { $0 } }
  }

  static func store(
    _ folder: TemporaryDirectory, now: Now = Now(), thinning: VersionThinning = .standard
  ) -> LocalVersionStore {
    LocalVersionStore(
      folder: folder.file("Documents"), directory: folder.file("versions"), thinning: thinning,
      gracePeriod: .zero, deviceName: "laptop", cache: folder.file("cache"),
      now: { now.value })
  }

  /// Each version's contents as text.
  static func texts(_ versions: [FileVersion]) async throws -> [String] {
    var texts: [String] = []
    for version in versions {
      texts.append(try String(contentsOf: try await version.contentsURL(), encoding: .utf8))
    }
    return texts
  }

  static func blobCount(_ folder: TemporaryDirectory) -> Int {
    let root = folder.file("versions")
    let items = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
    return items.reduce(0) { count, item in
      count
        + ((try? FileManager.default.contentsOfDirectory(
          atPath: root.appendingPathComponent("\(item)/blobs").path))?.count ?? 0)
    }
  }

  @Test("each save keeps what it replaces; versions read back, restore, and follow a rename")
  func savesKeepVersions() async throws {
    let folder = try TemporaryDirectory()
    let store = Self.store(folder)
    FileVersion.register(store)
    let url = folder.file("Documents/Note.txt")
    try Disk.write("one\n", to: url)
    let document = TextDocument(fileURL: url)
    try await document.open()
    for text in ["two\n", "three\n"] {
      document.setText(text)
      try await document.save(to: url, for: .forOverwriting)
    }
    try await document.close()

    let current = try #require(try await FileVersion.currentVersionOfItem(at: url))
    #expect(current.isCurrent && current.localizedNameOfSavingComputer == "laptop")
    #expect(try await current.contentsURL() == url)
    let others = try await FileVersion.otherVersionsOfItem(at: url)
    let texts = try await Self.texts(others)
    #expect(texts == ["two\n", "one\n"], "newest first, the current one not among them")
    #expect(others.allSatisfy { $0.hasLocalContents && !$0.isConflict })

    // Moved elsewhere in the folder, the document keeps its history (by identity).
    let moved = folder.file("Documents/Work/Renamed.txt")
    try FileManager.default.createDirectory(
      at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: url, to: moved)
    let first = try #require(try await FileVersion.otherVersionsOfItem(at: moved).last)
    #expect(try await first.replaceItem(at: moved) == moved)
    #expect(try String(contentsOf: moved, encoding: .utf8) == "one\n")
    let afterRestore = try await Self.texts(try await FileVersion.otherVersionsOfItem(at: moved))
    #expect(afterRestore.first == "three\n", "restoring kept what it replaced: \(afterRestore)")
  }

  @Test("a version of a package that carried its QuickLook thumbnail has a thumbnail")
  func thumbnails() async throws {
    let folder = try TemporaryDirectory()
    let store = Self.store(folder)
    let package = folder.file("Documents/Card.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    try await store.recordVersion(of: package)
    try Disk.write("png", to: package.appendingPathComponent("QuickLook/Thumbnail.png"))
    try await store.recordVersion(of: package)
    try Disk.write("bonjour", to: package.appendingPathComponent("text.txt"))
    let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    #expect(versions.map(\.hasThumbnail) == [true, false])
  }

  @Test("a save that changes one member of a package keeps one new blob, at any package size")
  func costFollowsTheChange() async throws {
    for members in [10, 300] {
      let folder = try TemporaryDirectory()
      let store = Self.store(folder)
      let package = folder.file("Documents/Album.pkg")
      for index in 0..<members {
        try Disk.write(
          String(repeating: "x", count: 1000 + index),
          to: package.appendingPathComponent("m\(index).txt"))
      }
      try await store.recordVersion(of: package)
      #expect(Self.blobCount(folder) == members)
      try Data("changed".utf8).write(to: package.appendingPathComponent("m3.txt"))
      try await store.recordVersion(of: package)
      #expect(Self.blobCount(folder) == members + 1, "\(members) members")
      try await store.recordVersion(of: package)
      #expect(Self.blobCount(folder) == members + 1, "nothing changed: nothing kept")
      let old = try #require(
        try await FileVersion.otherVersionsOfItem(at: package, store: store).first)
      let copy = try await old.contentsURL()
      #expect(
        try String(contentsOf: copy.appendingPathComponent("m3.txt"), encoding: .utf8).count == 1003
      )
    }
  }

  @Test("an edit in place that keeps the size and the modification time is still seen")
  func editInPlace() async throws {
    let folder = try TemporaryDirectory()
    let store = Self.store(folder)
    let url = folder.file("Documents/Same.txt")
    try Disk.write("aaaa", to: url)
    try await store.recordVersion(of: url)
    let date = try #require(
      try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as? Date)
    let handle = try FileHandle(forWritingTo: url)
    try handle.write(contentsOf: Data("bbbb".utf8))
    try handle.close()
    try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: url.path)
    try await store.recordVersion(of: url)
    try Disk.write("cccc", to: url)
    let texts = try await Self.texts(
      try await FileVersion.otherVersionsOfItem(at: url, store: store))
    #expect(texts == ["bbbb", "aaaa"])

    // A save that writes the same bytes again (a new file) is not a new version.
    try await store.recordVersion(of: url)
    try Disk.write("cccc", to: url)
    try await store.recordVersion(of: url)
    let others = try await FileVersion.otherVersionsOfItem(at: url, store: store)
    #expect(
      try await Self.texts(others) == ["bbbb", "aaaa"], "the current one is not listed twice")
  }

  @Test("history thins with age and removing versions frees their blobs")
  func thinningAndRemoval() async throws {
    let folder = try TemporaryDirectory()
    let now = Now()
    let store = Self.store(folder, now: now)
    let url = folder.file("Documents/Log.txt")
    // A save every 10 minutes for three days.
    for index in 0..<(3 * 24 * 6) {
      try Disk.write("save \(index)\n", to: url)
      try FileManager.default.setAttributes([.modificationDate: now.value], ofItemAtPath: url.path)
      try await store.recordVersion(of: url)
      now.advance(600)
    }
    let versions = try await FileVersion.otherVersionsOfItem(at: url, store: store)
    let dates = versions.compactMap(\.modificationDate)
    let lastDay = dates.filter { now.value.timeIntervalSince($0) < 86_400 }.count
    let older = dates.filter { now.value.timeIntervalSince($0) >= 86_400 }
    #expect(lastDay == 142, "every save of the last day but the current one (\(lastDay))")
    let hours = Set(older.map { Int($0.timeIntervalSince1970 / 3600) })
    #expect(older.count == hours.count && hours.count >= 47, "one an hour after a day")
    #expect(Self.blobCount(folder) == versions.count + 1, "thinned versions' blobs are freed")

    try await FileVersion.removeOtherVersionsOfItem(at: url, store: store)
    #expect(try await FileVersion.otherVersionsOfItem(at: url, store: store).isEmpty)
    #expect(Self.blobCount(folder) == 1, "only the current version's blob is left")
  }

  @Test("a kept version naming a path outside its package is refused; nothing is written outside")
  func hostileManifest() async throws {
    let folder = try TemporaryDirectory()
    let store = Self.store(folder)
    let package = folder.file("Documents/Doc.pkg")
    try Disk.write("inside", to: package.appendingPathComponent("a.txt"))
    try await store.recordVersion(of: package)
    try Disk.write("new", to: package.appendingPathComponent("a.txt"))
    let identity = try #require(ItemIdentity.stored(at: package))
    let versions = folder.file("versions/\(identity)/versions")
    let file = try #require(
      try FileManager.default.contentsOfDirectory(atPath: versions.path).first)
    let manifest = versions.appendingPathComponent(file)
    let text = try String(contentsOf: manifest, encoding: .utf8)
      .replacingOccurrences(of: "\"path\":\"a.txt\"", with: "\"path\":\"..\\/..\\/escaped.txt\"")
    try Data(text.utf8).write(to: manifest)
    let version = try #require(
      try await FileVersion.otherVersionsOfItem(at: package, store: store).first)
    await #expect(throws: QuireError.self) { try await version.contentsURL() }
    await #expect(throws: QuireError.self) { try await version.replaceItem(at: package) }
    #expect(!FileManager.default.fileExists(atPath: folder.file("cache/escaped.txt").path))
    #expect(!FileManager.default.fileExists(atPath: folder.file("escaped.txt").path))
    #expect(
      try String(contentsOf: package.appendingPathComponent("a.txt"), encoding: .utf8) == "new")
  }

  @Test("quire edit keeps versions; quire versions lists and restores them")
  func commandLine() async throws {
    let folder = try TemporaryDirectory()
    let environment = [
      "XDG_DATA_HOME": folder.file("data").path, "XDG_CACHE_HOME": folder.file("cache").path,
      "XDG_CONFIG_HOME": folder.file("config").path, "HOME": folder.path,
    ]
    let url = folder.file("Note.txt")
    try Disk.write("first\n", to: url)
    for text in ["second\n", "third\n"] {
      let edit = try await Executables.runDetached(
        "quire", ["edit", url.path, "--text", text], environment: environment)
      #expect(edit.status == 0, "\(edit.stderr)")
    }
    let list = try await Executables.runDetached(
      "quire", ["versions", "list", url.path, "--json"], environment: environment)
    #expect(list.status == 0, "\(list.stderr)")
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    let versions = try decoder.decode([VersionRecord].self, from: Data(list.stdout.utf8))
    #expect(versions.map(\.isCurrent) == [true, false, false])
    let oldest = try #require(versions.last)
    let restore = try await Executables.runDetached(
      "quire", ["versions", "restore", url.path, oldest.identifier], environment: environment)
    #expect(restore.status == 0, "\(restore.stderr)")
    #expect(try String(contentsOf: url, encoding: .utf8) == "first\n")
    let table = try await Executables.runDetached(
      "quire", ["versions", url.path], environment: environment)
    #expect(
      table.stdout.split(separator: "\n").count == 5, "a header and four versions: \(table.stdout)")
    let missing = try await Executables.runDetached(
      "quire", ["versions", "restore", url.path, "../../etc"], environment: environment)
    #expect(missing.status != 0 && missing.stderr.hasPrefix("quire: "))
  }
}
