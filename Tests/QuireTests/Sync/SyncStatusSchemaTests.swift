import Foundation
import GRDB
import Testing

@testable import QuireSync

/// The app keeps one read-only connection to each agent's state. GRDB caches a connection's
/// view of the schema and does not see another connection change it: a connection first used
/// while the agent was still migrating its state (the app started with the agent) kept a
/// `remote` table without its `conflicts` column, and never showed a conflict (a device's
/// Conflicts button stayed grey, its state recording the conflict).
@Suite("Sync statuses follow the agent's schema")
struct SyncStatusSchemaTests {
  @Test("a column the agent adds after the reader's first look is read from then on")
  func columnAddedLater() async throws {
    let folder = try TemporaryDirectory()
    let stateFile = folder.file("state.sqlite")
    let settings = folder.file("sync.json")
    try Disk.write("{}", to: settings)
    let state = try SyncState(file: stateFile)
    // The state as an agent that has not upgraded it yet leaves it.
    try await state.database.write { db in
      try db.execute(sql: "ALTER TABLE remote DROP COLUMN conflicts")
      try db.execute(
        sql: """
          INSERT INTO synced(item, path, kind, revision) VALUES ('i1', 'Trip.sicd', 'package', 6);
          INSERT INTO remote(item, path, kind, revision, deleted)
            VALUES ('i1', 'Documents/Trip.sicd', 'package', 6, 0);
          """)
    }
    let source = SyncStatusSource(
      folder: folder.file("Library"), stateFile: stateFile, settingsFile: settings)
    #expect(await source.statuses()?["Trip.sicd"]?.hasUnresolvedConflicts == false)
    // The agent upgrades its state, then records a conflict.
    try await state.database.write { db in
      try db.execute(sql: "ALTER TABLE remote ADD COLUMN conflicts TEXT")
      try db.execute(sql: "UPDATE remote SET conflicts = '7' WHERE item = 'i1'")
    }
    #expect(await source.statuses()?["Trip.sicd"]?.hasUnresolvedConflicts == true)
  }
}
