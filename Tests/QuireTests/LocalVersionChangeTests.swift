import Foundation
import QuireCore
import Synchronization
import Testing

@testable import Quire
@testable import QuireApp

/// Versions kept as what a save changed (`LocalVersionStore.recordVersion(of:changes:)`): what
/// they cost at two package sizes, what a document's saves pass, and that history put back
/// together from changes, thinned and removed, still reads every version as it was.
@Suite("Local versions kept as changes")
@MainActor
struct LocalVersionChangeTests {
  /// The package's files and folders: a file's path to its text, a folder's path to nil.
  static func contents(of url: URL) throws -> [String: String?] {
    var found: [String: String?] = [:]
    let paths = try #require(FileManager.default.subpathsOfDirectory(atPath: url.path) as [String]?)
    for path in paths {
      var isFolder: ObjCBool = false
      _ = FileManager.default.fileExists(
        atPath: url.appendingPathComponent(path).path, isDirectory: &isFolder)
      found[path] =
        isFolder.boolValue
        ? .some(nil)
        : .some(try String(contentsOf: url.appendingPathComponent(path), encoding: .utf8))
    }
    return found
  }

  /// The versions folder of the package's history.
  static func versionFiles(_ folder: TemporaryDirectory, _ package: URL) throws -> URL {
    let identity = try #require(ItemIdentity.stored(at: package))
    return folder.file("versions/\(identity)/versions")
  }

  @Test("keeping a version of one changed member costs the same calls and bytes at any size")
  func costFollowsTheChange() async throws {
    var costs: [[String: Int]] = []
    var sizes: [Int] = []
    for members in [20, 2_000] {
      let folder = try TemporaryDirectory()
      let store = LocalVersionTests.store(folder)
      let package = folder.file("Documents/Album.pkg")
      for index in 0..<members {
        try Disk.write("member \(index)", to: package.appendingPathComponent("m\(index).txt"))
      }
      let first = try #require(try await store.recordVersion(of: package, changes: nil))
      try Disk.write("changed", to: package.appendingPathComponent("m3.txt"))
      let counter = PullScanCostTests.Counter()
      let second = try await Sys.$faults.withValue(counter.hook) {
        try await store.recordVersion(
          of: package, changes: VersionChanges(since: first, members: ["m3.txt"]))
      }
      #expect(second != nil && second != first)
      costs.append(counter.counts.withLock { $0 })
      let file = try Self.versionFiles(folder, package).appendingPathComponent("\(second!).json")
      sizes.append(try Data(contentsOf: file).count)
      #expect(LocalVersionTests.blobCount(folder) == members + 1)
      // The version kept first reads back whole, from the change stored after it.
      try Disk.write("changed again", to: package.appendingPathComponent("m3.txt"))
      let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
      #expect(versions.count == 2)
      let kept = try Self.contents(of: try await versions[0].contentsURL())
      #expect(kept.count == members && kept["m3.txt"] == "changed" && kept["m4.txt"] == "member 4")
    }
    #expect(costs[0] == costs[1], "system calls at 20 and 2 000 members: \(costs)")
    // (Its numbers, inodes and times, may differ in length by a few digits.)
    #expect(
      abs(sizes[0] - sizes[1]) <= 32, "the stored change's size at 20 and 2 000 members: \(sizes)")
  }

  @Test("an album's saves keep versions as changes, and each reads back as it was saved")
  func documentSaves() async throws {
    let folder = try TemporaryDirectory()
    let store = LocalVersionTests.store(folder)
    FileVersion.register(store)
    let package = folder.file("Documents/Trip.album")
    let names = (0..<50).map { "photo-\($0).jpg" }
    for name in names {
      try Disk.write("bytes of \(name)", to: package.appendingPathComponent(name))
    }
    let album = AlbumDocument(fileURL: package)
    try await album.open()
    var saved: [[String: String?]] = [try Self.contents(of: package)]
    func save(_ edit: () throws -> Void) async throws {
      try edit()
      album.undoManager.endEvent()
      try await album.save(to: package, for: .forOverwriting)
      saved.append(try Self.contents(of: package))
    }
    try await save { try album.removeImage(named: names[1]) }  // the first save looks at all
    try await save {
      try album.removeImage(named: names[2])
      _ = try album.addImage(Data("new bytes".utf8), preferredName: names[2])
    }
    try await save { try album.removeImage(named: names[3]) }
    try await save { _ = try album.addImage(Data("added".utf8), preferredName: "added.jpg") }
    try await album.close()

    let stored = try FileManager.default.contentsOfDirectory(
      atPath: try Self.versionFiles(folder, package).path
    ).sorted()
    let manifests = try stored.map {
      try JSONDecoder().decode(
        LocalVersionManifest.self,
        from: Data(contentsOf: try Self.versionFiles(folder, package).appendingPathComponent($0)))
    }
    #expect(manifests.map { $0.base == nil } == [true, false, false, false])
    #expect(manifests.dropFirst().allSatisfy { $0.members.count <= 2 }, "only what changed")
    let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    var read: [[String: String?]] = []
    for version in versions { read.append(try Self.contents(of: try await version.contentsURL())) }
    #expect(read == Array(saved.dropLast().reversed()), "newest first, each as it was")
    #expect(try await FileVersion.currentVersionOfItem(at: package)?.isCurrent == true)
  }

  @Test("a member another program changed just before a save that replaces it is in the version")
  func outsideChangeBeforeSave() async throws {
    let folder = try TemporaryDirectory()
    let store = LocalVersionTests.store(folder)
    FileVersion.register(store)
    let package = folder.file("Documents/Shared.album")
    for name in ["a.jpg", "b.jpg"] {
      try Disk.write("bytes of \(name)", to: package.appendingPathComponent(name))
    }
    let album = AlbumDocument(fileURL: package)
    try await album.open()
    try album.removeImage(named: "a.jpg")
    _ = try album.addImage(Data("mine".utf8), preferredName: "a.jpg")
    album.undoManager.endEvent()
    try await album.save(to: package, for: .forOverwriting)  // looks at every member
    try album.removeImage(named: "b.jpg")
    _ = try album.addImage(Data("mine too".utf8), preferredName: "b.jpg")
    album.undoManager.endEvent()
    // Another program rewrites b.jpg; the save below replaces it before the document has
    // judged that event (nothing suspends in between on this actor).
    try Disk.write("theirs", to: package.appendingPathComponent("b.jpg"))
    try await album.save(to: package, for: .forOverwriting)
    try await album.close()
    let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    let before = try Self.contents(of: try await #require(versions.first).contentsURL())
    #expect(before["b.jpg"] == "theirs", "the other program's bytes are kept: \(before)")
    #expect(before["a.jpg"] == "mine")
  }

  @Test("removing a version others are changes from makes the fold durable before the unlink")
  func durableFold() async throws {
    let folder = try TemporaryDirectory()
    let store = LocalVersionTests.store(folder)
    let package = folder.file("Documents/Fold.pkg")
    try Disk.write("one", to: package.appendingPathComponent("a.txt"))
    var newest = try #require(try await store.recordVersion(of: package, changes: nil))
    for text in ["two", "three"] {
      try Disk.write(text, to: package.appendingPathComponent("a.txt"))
      newest = try #require(
        try await store.recordVersion(
          of: package, changes: VersionChanges(since: newest, members: ["a.txt"])))
    }
    try Disk.write("four", to: package.appendingPathComponent("a.txt"))
    let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    #expect(versions.count == 3)
    let calls = Mutex<[String]>([])
    try await Sys.$faults.withValue(
      FaultHook { call in
        calls.withLock { $0.append(call) }
        return nil
      }
    ) {
      try await versions[2].remove()  // the oldest, whole: the next one takes it in
    }
    let order = calls.withLock { $0 }
    let unlink = try #require(order.firstIndex(of: "unlink"))
    #expect(order[..<unlink].contains("fsync"), "fsynced before the unlink: \(order)")
    let left = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    var texts: [String?] = []
    for version in left {
      texts.append(try Self.contents(of: try await version.contentsURL())["a.txt"] ?? nil)
    }
    #expect(texts == ["three", "two"])
  }

  @Test("a version cut short by a power cut is left out, with the changes kept after it")
  func versionCutShort() async throws {
    let folder = try TemporaryDirectory()
    let store = LocalVersionTests.store(folder)
    let package = folder.file("Documents/Cut.pkg")
    try Disk.write("one", to: package.appendingPathComponent("a.txt"))
    try Disk.write("kept", to: package.appendingPathComponent("b.txt"))
    let first = try #require(try await store.recordVersion(of: package, changes: nil))
    try Disk.write("two", to: package.appendingPathComponent("a.txt"))
    let second = try #require(
      try await store.recordVersion(
        of: package, changes: VersionChanges(since: first, members: ["a.txt"])))
    try Disk.write("three", to: package.appendingPathComponent("a.txt"))
    let third = try #require(
      try await store.recordVersion(
        of: package, changes: VersionChanges(since: second, members: ["a.txt"])))
    // The second version's manifest never reached the disk: an empty file after the reboot.
    try Data().write(
      to: try Self.versionFiles(folder, package).appendingPathComponent("\(second).json"))

    // The document reopened knows nothing of its changes: every member is looked at again.
    try Disk.write("four", to: package.appendingPathComponent("a.txt"))
    let fourth = try #require(try await store.recordVersion(of: package, changes: nil))
    #expect(![first, second, third].contains(fourth))
    try Disk.write("five", to: package.appendingPathComponent("a.txt"))
    let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
    #expect(versions.map(\.record.identifier) == [fourth, first])
    var texts: [String?] = []
    for version in versions {
      texts.append(try Self.contents(of: try await version.contentsURL())["a.txt"] ?? nil)
    }
    #expect(texts == ["four", "one"])
  }

  /// One step of a generated history: what changes in the package, and the paths it names.
  static func step(_ random: inout SplitMix, in package: URL, index: Int) throws -> Set<String> {
    let top = ["a.txt", "b.txt", "c", "d"]
    let path = top[random.below(top.count)]
    let url = package.appendingPathComponent(path)
    switch random.below(4) {
    case 0:  // a file written (replacing a folder there)
      try? FileManager.default.removeItem(at: url)
      try Disk.write("file \(index)", to: url)
      return [path]
    case 1:  // a folder written whole (replacing a file there)
      try? FileManager.default.removeItem(at: url)
      try Disk.write("in \(index)", to: url.appendingPathComponent("x.txt"))
      try FileManager.default.createDirectory(
        at: url.appendingPathComponent("empty"), withIntermediateDirectories: true)
      return [path]
    case 2:  // a member inside a folder changed, the folder made if missing
      var isFolder: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
        !isFolder.boolValue
      {
        try FileManager.default.removeItem(at: url)
        try Disk.write("inner \(index)", to: url.appendingPathComponent("y.txt"))
        return [path]
      }
      try Disk.write("inner \(index)", to: url.appendingPathComponent("y.txt"))
      return [path + "/y.txt"]
    default:  // removed
      try? FileManager.default.removeItem(at: url)
      return [path]
    }
  }

  @Test("history kept as changes, thinned and removed at random, reads every version back")
  func generatedHistories() async throws {
    for seed in 1...40 {
      var random = SplitMix(seed: UInt64(seed))
      let folder = try TemporaryDirectory()
      let now = LocalVersionTests.Now()
      let store = LocalVersionTests.store(
        folder, now: now,
        thinning: VersionThinning(
          keepAll: .seconds(600), hourlyUntil: .seconds(4 * 3600), dailyUntil: .seconds(86_400)))
      let package = folder.file("Documents/History.pkg")
      try Disk.write("first", to: package.appendingPathComponent("a.txt"))
      var expected: [String: [String: String?]] = [:]
      var newest = try #require(try await store.recordVersion(of: package, changes: nil))
      expected[newest] = try Self.contents(of: package)
      for index in 0..<24 {
        let changed = try Self.step(&random, in: package, index: index)
        now.advance(Double(60 + random.below(1741)))
        // Now and then the store is told nothing (a document just opened): it looks at all.
        let told = random.below(6) == 0 ? nil : changed
        newest = try #require(
          try await store.recordVersion(
            of: package, changes: told.map { VersionChanges(since: newest, members: $0) }))
        expected[newest] = try Self.contents(of: package)
        if random.below(8) == 0 {
          let listed = try await FileVersion.otherVersionsOfItem(at: package, store: store)
          if !listed.isEmpty {
            try await listed[random.below(listed.count)].remove()
          }
        }
      }
      try Disk.write("current", to: package.appendingPathComponent("now.txt"))
      let versions = try await FileVersion.otherVersionsOfItem(at: package, store: store)
      #expect(!versions.isEmpty)
      for version in versions {
        let name = version.record.identifier
        let read = try Self.contents(of: try await version.contentsURL())
        #expect(read == expected[name], "seed \(seed), version \(name)")
      }
    }
  }
}
