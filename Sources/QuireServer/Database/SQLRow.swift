import QuireSyncProtocol

/// One row of a result, its columns by name (a later column of the same name wins, as
/// `SELECT j.sequence, r.*` wants) and the first by position. Names are matched without case,
/// as PostgreSQL folds unquoted names to lower case.
struct SQLRow: Sendable {
  private let values: [String: SQLValue]
  private let firstValue: SQLValue

  init(_ columns: [(String, SQLValue)]) {
    values = Dictionary(columns.map { ($0.0.lowercased(), $0.1) }) { _, later in later }
    firstValue = columns.first?.1 ?? .null
  }

  /// The column `name` as `T`; an internal error if the row has no such column or it holds
  /// another type (a mistake in the server's own SQL, never the user's input).
  subscript<T: SQLColumn>(_ name: String) -> T {
    get throws(SyncError) {
      guard let value = values[name.lowercased()] else {
        throw SyncError(.internalError, "The server's query has no column “\(name)”.")
      }
      return try Self.typed(value, name)
    }
  }

  /// The column `name` as it is stored.
  func value(_ name: String) throws(SyncError) -> SQLValue {
    guard let value = values[name.lowercased()] else {
      throw SyncError(.internalError, "The server's query has no column “\(name)”.")
    }
    return value
  }

  /// The first column as `T`.
  func first<T: SQLColumn>() throws(SyncError) -> T {
    try Self.typed(firstValue, "1")
  }

  private static func typed<T: SQLColumn>(_ value: SQLValue, _ name: String) throws(SyncError)
    -> T
  {
    guard let typed = T(sqlValue: value) else {
      throw SyncError(
        .internalError, "The server's column “\(name)” holds \(value), not a \(T.self).")
    }
    return typed
  }
}
