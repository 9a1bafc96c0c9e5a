import QuireSyncProtocol

/// One row of a result, its columns by name (a later column of the same name wins, as
/// `SELECT j.sequence, r.*` wants) and the first by position. Names are matched without case,
/// as PostgreSQL folds unquoted names to lower case.
struct SQLRow: Sendable {
  /// The columns in order. A handful a row: searched in place, which costs less than hashing
  /// them into a dictionary for every row of a 10 000-row listing.
  private let columns: [(name: String, value: SQLValue)]
  private let firstValue: SQLValue

  init(_ columns: [(name: String, value: SQLValue)]) {
    self.columns = columns
    firstValue = columns.first?.value ?? .null
  }

  /// The column `name` as `T`; an internal error if the row has no such column or it holds
  /// another type (a mistake in the server's own SQL, never the user's input).
  subscript<T: SQLColumn>(_ name: String) -> T {
    get throws(SyncError) { try Self.typed(try value(name), name) }
  }

  /// The column `name` as it is stored: the last column so named, matched exactly, else
  /// without case.
  func value(_ name: String) throws(SyncError) -> SQLValue {
    if let column = columns.last(where: { $0.name == name }) { return column.value }
    let folded = name.lowercased()
    guard let column = columns.last(where: { $0.name.lowercased() == folded }) else {
      throw SyncError(.internalError, "The server's query has no column “\(name)”.")
    }
    return column.value
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
