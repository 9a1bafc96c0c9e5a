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
      let rows = try Row.fetchCursor(
        try db.cachedStatement(sql: sql), arguments: Self.arguments(arguments))
      while let row = try rows.next() {
        try body(SQLRow(row.map { ($0.0, Self.value($0.1)) }))
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
