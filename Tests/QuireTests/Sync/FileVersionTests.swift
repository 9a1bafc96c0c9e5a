import Foundation
import Quire
import QuireSync
import Testing

/// `FileVersion` over a synced folder: the server's revisions, a conflict made by two real
/// agents, resolved, restored and removed through the NSFileVersion-shaped API.
@Suite("FileVersion of synced documents")
struct FileVersionTests {
  @Test("current, other and conflict versions; contents, resolve, restore and remove")
  func versionsOfASyncedDocument() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("first\n", to: "Note.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Note.txt") == "first\n")
    try a.write("second\n", to: "Note.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Note.txt") == "second\n")

    // Both edit the one line at once; A's edit is older, so B's wins.
    try await a.editAtOnce("Note.txt", "from A\n", with: b, "from B\n")
    try a.sync()
    #expect(a.text("Note.txt") == "from B\n", "B's later edit is current")

    let store = SyncVersionStore(
      folder: a.folder, settingsFile: a.settingsFile,
      cache: a.home.url.appendingPathComponent("cache"))
    let note = a.url("Note.txt")
    let current = try #require(try await FileVersion.currentVersionOfItem(at: note, store: store))
    #expect(current.isCurrent && !current.isConflict)
    #expect(current.localizedNameOfSavingComputer == "B")
    #expect(try await current.contentsURL() == note)
    let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: note, store: store)
    #expect(conflicts.count == 1)
    let conflict = try #require(conflicts.first)
    #expect(conflict.localizedNameOfSavingComputer == "A")
    #expect(!conflict.hasLocalContents)
    // The dates are the contents' (A's older edit), not when the server committed the merge.
    #expect(
      try #require(conflict.modificationDate) < (try #require(current.modificationDate)),
      "the conflict's edit is older than the current one")
    #expect(
      try String(contentsOf: try await conflict.contentsURL(), encoding: .utf8) == "from A\n")
    let others = try await FileVersion.otherVersionsOfItem(at: note, store: store)
    #expect(!others.contains(current), "the current version is never among the others")
    #expect(others.contains(conflict))
    let texts = try await others.asyncMap {
      try String(contentsOf: try await $0.contentsURL(), encoding: .utf8)
    }
    #expect(texts.contains("first\n") && texts.contains("second\n"), "\(texts)")

    // Resolving reaches every device: B's item stops reporting the conflict.
    let statusOfB = SyncStatusSource(
      folder: b.folder, stateFile: b.stateFile, settingsFile: b.settingsFile)
    try b.sync()
    #expect(await statusOfB.statuses()?["Note.txt"]?.hasUnresolvedConflicts == true)
    try await conflict.setResolved(true)
    #expect(conflict.isResolved)
    #expect(try await FileVersion.unresolvedConflictVersionsOfItem(at: note, store: store).isEmpty)
    try b.sync()
    #expect(await statusOfB.statuses()?["Note.txt"]?.hasUnresolvedConflicts == false)

    // Restoring the first version makes it current on both devices.
    let first = try #require(
      try await others.asyncFilter {
        try String(contentsOf: try await $0.contentsURL(), encoding: .utf8) == "first\n"
      }.first)
    #expect(try await first.replaceItem(at: note) == note)
    try SyncDevice.sync(a, b)
    #expect(a.text("Note.txt") == "first\n" && b.text("Note.txt") == "first\n")

    // Removing the other versions leaves only the current one.
    try await FileVersion.removeOtherVersionsOfItem(at: note, store: store)
    #expect(try await FileVersion.otherVersionsOfItem(at: note, store: store).isEmpty)
    await #expect(throws: QuireError.self) {
      try await FileVersion.currentVersionOfItem(at: note, store: store)?.remove()
    }
  }

  @Test("a document no store keeps has only its current version")
  func unsyncedDocument() async throws {
    let folder = try TemporaryDirectory()
    try Data("x".utf8).write(to: folder.file("Loose.txt"))
    let current = try #require(
      try await FileVersion.currentVersionOfItem(at: folder.file("Loose.txt")))
    #expect(current.isCurrent && current.hasLocalContents)
    #expect(try await FileVersion.otherVersionsOfItem(at: folder.file("Loose.txt")).isEmpty)
    #expect(try await FileVersion.currentVersionOfItem(at: folder.file("Missing.txt")) == nil)
  }
}

extension Array {
  fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var result: [T] = []
    for element in self { result.append(try await transform(element)) }
    return result
  }

  fileprivate func asyncFilter(_ keep: (Element) async throws -> Bool) async rethrows -> [Element] {
    var result: [Element] = []
    for element in self where try await keep(element) { result.append(element) }
    return result
  }
}
