import Foundation
import GRDB

/// The embedded metadata database: SQLite (WAL) in the server's data folder, through GRDB. One
/// process owns it, so announcements have no one to reach.
final class SQLiteMetadata: MetadataDatabase {
  let engine = "SQLite"
  private let pool: DatabasePool
  private let folder: URL

  /// Opens (making and migrating if needed) `folder/server.sqlite`.
  init(folder: URL) throws {
    self.folder = folder
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    configuration.prepareDatabase { db in
      // 16 MiB of pages per connection, not SQLite's 2: a listing of a 10 000-item folder reads
      // about 9 MiB, and with the default every listing read them all again from the file.
      try db.execute(sql: "PRAGMA cache_size = -16384")
    }
    pool = try DatabasePool(
      path: folder.appendingPathComponent("server.sqlite").path, configuration: configuration)
    try ServerSchema.migrator().migrate(pool)
  }

  func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try pool.read { try body(Session(db: $0)) }
  }

  func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try read(body)
  }

  func writeCommit<T>(scope: String, _ body: (any SQLSession) throws -> T) throws -> T {
    try write(body)
  }

  func writeStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try write(body)
  }

  func writeOutsideJournal<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try write(body)
  }

  func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try pool.write { try body(Session(db: $0)) }
  }

  /// Settings are files beside the database (`blobs.json`), as the server has always kept them.
  func setting(_ key: String) throws -> String? {
    let file = folder.appendingPathComponent(key + ".json")
    guard FileManager.default.fileExists(atPath: file.path) else { return nil }
    return String(decoding: try Data(contentsOf: file), as: UTF8.self)
  }

  func setSetting(_ key: String, _ value: String) throws {
    try Data(value.utf8).write(to: folder.appendingPathComponent(key + ".json"), options: .atomic)
  }

  func announce(_ key: String) {}

  func listen(_ wake: @escaping @Sendable (String?) -> Void) async {}

  /// A GRDB connection inside its transaction; statements are cached per connection.
  private struct Session: SQLSession {
    let db: Database
    let byteOrder = ""

    func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
      try db.cachedStatement(sql: sql).execute(arguments: Self.arguments(arguments))
      return db.changesCount
    }

    func forEach(
      _ sql: String, _ arguments: [any SQLArgument], _ body: (SQLRow) throws -> Void
    ) throws {
      let statement = try db.cachedStatement(sql: sql)
      // The names once, not once a row: a listing of 10 000 items spent a tenth of its time
      // making the same eight names again. The values straight from the statement: GRDB's
      // generic `row[index]` looked up type metadata at run time for each, a quarter of it.
      let names = statement.columnNames
      let raw = statement.sqliteStatement
      let rows = try Row.fetchCursor(statement, arguments: Self.arguments(arguments))
      while try rows.next() != nil {
        var values: [SQLValue] = []
        values.reserveCapacity(names.count)
        for index in names.indices {
          values.append(Self.value(DatabaseValue(sqliteStatement: raw, index: CInt(index))))
        }
        try body(SQLRow(names: names, values: values))
      }
    }

    private static func arguments(_ arguments: [any SQLArgument]) -> StatementArguments {
      StatementArguments(
        arguments.map { argument -> DatabaseValue in
          switch argument.sqlValue {
          case .null: return .null
          case .integer(let value): return value.databaseValue
          case .real(let value): return value.databaseValue
          case .text(let value): return value.databaseValue
          case .blob(let value): return Data(value).databaseValue
          }
        })
    }

    private static func value(_ value: DatabaseValue) -> SQLValue {
      switch value.storage {
      case .null: return .null
      case .int64(let integer): return .integer(integer)
      case .double(let real): return .real(real)
      case .string(let text): return .text(text)
      case .blob(let data): return .blob([UInt8](data))
      }
    }
  }
}
