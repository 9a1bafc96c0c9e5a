import GRDB

/// The server's tables in SQLite, put together from each aggregate's own definitions
/// (``AccountTables``, ``CommitTables``, ``ChunkTables``, ``ShareTables``); ``PostgresSchema``
/// makes the same in PostgreSQL.
enum ServerSchema {
  /// Every aggregate's tables, in the order their statements run (a table another refers to
  /// comes first).
  static var aggregates: [any AggregateTables.Type] {
    [
      AccountTables.self, CommitTables.self, ChunkTables.self, ShareTables.self, DAVTables.self,
    ]
  }

  /// SQLite's migrations, in order. Their names are recorded in every existing database, so a
  /// new one is added at the end, never renamed.
  static let migrations = (1...15).map { "v\($0)" }

  static func migrator() -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    for name in migrations {
      let sql = aggregates.compactMap { $0.sqlite[name] }.joined(separator: "\n")
      migrator.registerMigration(name) { db in try db.execute(sql: sql) }
    }
    return migrator
  }
}
