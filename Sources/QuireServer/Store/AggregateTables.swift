/// The tables one aggregate of the server's state owns, in both engines side by side, so a
/// change to one is made beside the other (``ServerSchema`` and ``PostgresSchema`` put the
/// aggregates together; a test reads both engines back and compares them).
protocol AggregateTables {
  /// Its SQL for each of SQLite's migrations it takes part in, by the migration's name ("v1"
  /// to "v10", as GRDB records them in existing databases).
  static var sqlite: [String: String] { get }
  /// Its statements for each PostgreSQL schema version it takes part in.
  static var postgres: [Int64: [String]] { get }
  /// Its tables and their columns, in the order ``ServerStore/migrate(to:)`` copies them.
  static var columns: [(name: String, columns: [String])] { get }
}
