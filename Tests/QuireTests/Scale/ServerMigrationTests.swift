import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// `quire server migrate --to postgres://…`: an embedded server's data moved into PostgreSQL.
@Suite("Server migration to PostgreSQL")
struct ServerMigrationTests {
  typealias S = SyncTestSupport

  @Test(
    "an embedded server migrates with its accounts, tokens, items and journal; devices carry on; a second migration is refused"
  )
  func migrate() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice", device: "a")
    var base: Int64?
    for round in 1...3 {
      base = try await ServerReplicaTests.edit(a, round: round, base: base)
    }
    let before = try await a.changes(since: 0)
    server.kill()

    let database = try await PostgresCluster.shared.database()
    let migrate = [
      "server", "migrate", "--data", server.data.path, "--to", database.absoluteString,
    ]
    let moved = try Executables.run("quire", migrate)
    #expect(moved.status == 0, "\(moved.stderr)")
    #expect(moved.stdout.contains("Copied"))

    try server.restart(arguments: ["--database", database.absoluteString])
    // The same token works, the journal reads the same, and the next commit continues it.
    let after = try await a.changes(since: 0)
    #expect(after.entries.map(\.sequence) == before.entries.map(\.sequence))
    #expect(after.entries.map(\.revision) == before.entries.map(\.revision))
    let next = try await ServerReplicaTests.edit(a, round: 4, base: base)
    #expect(next > base!)
    let manifest = try await a.manifest(item: "x", revision: next)
    let bytes = try await a.fetchChunks(manifest.change.upserted[0].chunks.map(\.hash))
    #expect(bytes.values.flatMap { $0 } == S.bytes("round 4"))
    let last = try await a.changes(since: before.cursor)
    #expect(last.entries.map(\.sequence) == [before.cursor + 1])

    let again = try Executables.run("quire", migrate)
    #expect(again.status != 0)
    let lines = again.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].contains("already holds"), "\(again.stderr)")
  }
}
