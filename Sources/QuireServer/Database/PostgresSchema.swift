/// The server's tables in PostgreSQL, put together from each aggregate's own definitions: the
/// same tables and indexes as ``ServerSchema`` makes in SQLite, versioned in `schema_version`
/// so later releases can migrate them.
enum PostgresSchema {
  static let version: Int64 = 10

  /// Makes the tables if the database has none; refuses a newer schema than this server knows.
  static func migrate(_ db: any SQLSession) throws {
    try db.execute("CREATE TABLE IF NOT EXISTS schema_version(version BIGINT NOT NULL)")
    let current = try db.value(Int64.self, "SELECT max(version) FROM schema_version") ?? 0
    if current >= version { return }
    for number in (current + 1)...version {
      let statements =
        ServerSchema.aggregates.flatMap { $0.postgres[number] ?? [] } + (own[number] ?? [])
      for statement in statements {
        try db.execute(statement)
      }
      try db.execute("INSERT INTO schema_version(version) VALUES (?)", [number])
    }
  }

  /// The store's own table: settings every replica shares (where the chunk bytes are). SQLite
  /// keeps them in a file beside the database.
  private static let own: [Int64: [String]] = [
    1: ["CREATE TABLE settings(key TEXT PRIMARY KEY, value TEXT NOT NULL)"]
  ]
}
