import Foundation
import Quire
import QuireServer
import QuireSync
import Testing

/// The server frees what no version needs: a settled conflict's removed versions, a crashed
/// upload's pack; never a chunk a kept version, or a recent upload, still names.
@Suite("Server garbage collection")
struct SyncCollectionTests {
  static func packs(_ server: SyncServerProcess) -> [String] { (try? server.packs()) ?? [] }

  static func collect(_ server: SyncServerProcess, grace: Int) throws -> String {
    let run = try Executables.run(
      "quire", ["server", "gc", "--grace", String(grace)] + server.dataArguments,
      environment: server.environment)
    guard run.status == 0 else { throw SyncServerProcess.Failure(run.stderr) }
    return run.stdout
  }

  @Test(
    "removing a settled conflict's versions frees their chunks; every kept version still reads",
    arguments: ServerBackend.allCases)
  func removedConflictVersionsAreFreed(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("first\n", to: "Note.txt")
    #expect(await eventually { b.text("Note.txt") == "first\n" })
    try await a.editAtOnce("Note.txt", "from A\n", with: b, "from B\n")
    #expect(await eventually { a.text("Note.txt") == "from B\n" })

    // A crashed upload's pack, no row naming it.
    try server.writeOrphanPack("orphan", Array("half an upload".utf8))

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

  @Test(
    "history on the server thins with age; the current version and its bytes stay",
    arguments: ServerBackend.allCases)
  func historyThins(backend: ServerBackend) async throws {
    typealias S = SyncTestSupport
    let server = try await SyncServerProcess.started(backend: backend)
    let client = try await server.client("alice")
    var base: Int64?
    for index in 0..<5 {
      let answer = try await client.commit(
        S.commit(
          "log", path: "Documents/Log.txt", base: base, kind: .file,
          upserted: try await S.upload(["": S.bytes("save \(index)\n")], with: client)))
      base = answer.revision
    }
    #expect(try await client.versions(item: "log").versions.count == 5)

    // Today every save is kept; forty days on, the saves of one day thin to one.
    let data = try server.openStore()
    #expect(try data.chunks.collectGarbage(grace: .zero).thinned == 0)
    let later = try data.chunks.collectGarbage(
      grace: .zero, now: Date().addingTimeInterval(40 * 86_400))
    #expect(later.thinned == 3 && later.chunks == 0, "\(later)")
    let list = try await client.versions(item: "log")
    #expect(list.versions.count == 2, "the current one and one older")
    #expect(list.current == base)
    // The current revision still reads whole, and so does a thinned one (its bytes stay).
    for revision in [base!, base! - 2] {
      let manifest = try await client.manifest(item: "log", revision: revision)
      let chunks = try await client.fetchChunks(
        manifest.change.upserted.flatMap { $0.chunks.map(\.hash) })
      #expect(
        manifest.change.upserted.allSatisfy { $0.chunks.allSatisfy { chunks[$0.hash] != nil } })
    }
  }
}
