import QuireSyncProtocol

/// One row of a result, its columns by name (a later column of the same name wins, as
/// `SELECT j.sequence, r.*` wants) and the first by position. Names are matched without case,
/// as PostgreSQL folds unquoted names to lower case.
struct SQLRow: Sendable {
  /// The columns' names, one array for every row of a statement; and this row's values, in
  /// the same order. A handful a row: searched in place, which costs less than hashing them
  /// into a dictionary for every row of a 10 000-row listing.
  private let names: [String]
  private let values: [SQLValue]

  init(names: [String], values: [SQLValue]) {
    precondition(names.count == values.count, "a row has a value for each column")
    self.names = names
    self.values = values
  }

  init(_ columns: [(name: String, value: SQLValue)]) {
    self.init(names: columns.map(\.name), values: columns.map(\.value))
  }

  /// The column `name` as `T`; an internal error if the row has no such column or it holds
  /// another type (a mistake in the server's own SQL, never the user's input).
  subscript<T: SQLColumn>(_ name: String) -> T {
    get throws(SyncError) { try Self.typed(try value(name), name) }
  }

  /// The column `name` as it is stored: the last column so named, matched exactly, else
  /// without case.
  func value(_ name: String) throws(SyncError) -> SQLValue {
    if let index = names.lastIndex(of: name) { return values[index] }
    let folded = name.lowercased()
    guard let index = names.lastIndex(where: { $0.lowercased() == folded }) else {
      throw SyncError(.internalError, "The server's query has no column “\(name)”.")
    }
    return values[index]
  }

  /// The first column as `T`.
  func first<T: SQLColumn>() throws(SyncError) -> T {
    try Self.typed(values.first ?? .null, "1")
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
