import Foundation
import Quire
import QuireServer
import QuireSync
import Testing

/// The server frees what no version needs: a settled conflict's removed versions, a crashed
/// upload's pack; never a chunk a kept version, or a recent upload, still names.
@Suite("Server garbage collection")
struct SyncCollectionTests {
  static func packs(_ server: SyncServerProcess) -> [String] {
    (try? FileManager.default.contentsOfDirectory(
      atPath: server.data.url.appendingPathComponent("blobs/packs").path)) ?? []
  }

  static func collect(_ server: SyncServerProcess, grace: Int) throws -> String {
    let run = try Executables.run(
      "quire", ["server", "gc", "--data", server.data.path, "--grace", String(grace)])
    guard run.status == 0 else { throw SyncServerProcess.Failure(run.stderr) }
    return run.stdout
  }

  @Test("removing a settled conflict's versions frees their chunks; every kept version still reads")
  func removedConflictVersionsAreFreed() async throws {
    let server = try SyncServerProcess()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("first\n", to: "Note.txt")
    #expect(await eventually { b.text("Note.txt") == "first\n" })
    try await a.editAtOnce("Note.txt", "from A\n", with: b, "from B\n")
    #expect(await eventually { a.text("Note.txt") == "from B\n" })

    // A crashed upload's pack, no row naming it.
    let orphan = server.data.url.appendingPathComponent("blobs/packs/orphan")
    try Data("half an upload".utf8).write(to: orphan)

    let store = SyncVersionStore(
      folder: a.folder, settingsFile: a.settingsFile,
      cache: a.home.url.appendingPathComponent("cache"))
    let note = a.url("Note.txt")
    let conflicts = try await FileVersion.unresolvedConflictVersionsOfItem(at: note, store: store)
    #expect(conflicts.count == 1)
    #expect(
      try Self.collect(server, grace: 3600).hasPrefix("Freed 0 chunks in 0 files"),
      "within the grace period nothing goes")
    #expect(Self.packs(server).contains("orphan"))
    #expect(
      try Self.collect(server, grace: 0).hasPrefix("Freed 0 chunks in 1 files"),
      "a kept conflict version keeps its chunks; only the orphan pack goes")
    #expect(!Self.packs(server).contains("orphan"))

    let before = Self.packs(server).count
    for conflict in conflicts {
      try await conflict.setResolved(true)
      try await conflict.remove()
    }
    let freed = try Self.collect(server, grace: 0)
    #expect(freed.hasPrefix("Freed 1 chunks in 1 files"), "A's losing edit: \(freed)")
    #expect(Self.packs(server).count == before - 1)

    // Everything still listed reads, and a new device gets the document whole.
    var texts: [String] = []
    for version in try await FileVersion.otherVersionsOfItem(at: note, store: store) {
      texts.append(try String(contentsOf: try await version.contentsURL(), encoding: .utf8))
    }
    #expect(texts == ["first\n"], "\(texts)")
    let c = try SyncDevice("C", server: server)
    try c.start()
    #expect(await eventually { c.text("Note.txt") == "from B\n" })
  }

  @Test("history on the server thins with age; the current version and its bytes stay")
  func historyThins() async throws {
    let server = try SyncServerProcess()
    let a = try SyncDevice("A", server: server)
    try a.start()
    let store = SyncVersionStore(
      folder: a.folder, settingsFile: a.settingsFile,
      cache: a.home.url.appendingPathComponent("cache"))
    let log = a.url("Log.txt")
    for index in 0..<5 {
      try a.write("save \(index)\n", to: "Log.txt")
      // Each save reaches the server before the next (a revision each, or more if the agent
      // read a write half done). (No `quire sync status` here: a process run from this async
      // poll would block one of the test pool's few threads while it runs.)
      #expect(
        await eventuallyAsync {
          (try? await FileVersion.otherVersionsOfItem(at: log, store: store).count) ?? -1
            >= index
        }, "save \(index) on the server")
    }
    let kept = try await FileVersion.otherVersionsOfItem(at: log, store: store).count
    #expect(kept >= 4)

    // Today every save is kept; forty days on, the saves of one day thin to one.
    let data = try ServerStore(folder: server.data.url)
    #expect(try data.collectGarbage(grace: .zero).thinned == 0)
    let later = try data.collectGarbage(grace: .zero, now: Date().addingTimeInterval(40 * 86_400))
    #expect(later.thinned == kept - 1 && later.chunks == 0, "\(later) of \(kept)")
    let others = try await FileVersion.otherVersionsOfItem(at: log, store: store)
    #expect(others.count == 1)
    let current = try #require(try await FileVersion.currentVersionOfItem(at: log, store: store))
    #expect(try String(contentsOf: try await current.contentsURL(), encoding: .utf8) == "save 4\n")
    let c = try SyncDevice("C", server: server)
    try c.start()
    #expect(
      await eventually { c.text("Log.txt") == "save 4\n" }, "a new device still gets it whole")
  }
}

/// Polls an async condition until it holds or `seconds` pass (a bounded wait for another
/// process's effect).
private func eventuallyAsync(seconds: Double = 30, _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(50))  // polling interval of a bounded wait
  }
  return false
}
