/// The statements of one transaction, the same for SQLite and PostgreSQL. Statements use `?`
/// for arguments and the SQL both engines speak (`INSERT … ON CONFLICT`, `RETURNING`, partial
/// indexes); the PostgreSQL session numbers the marks.
protocol SQLSession {
  /// Runs `sql`; returns how many rows it changed.
  @discardableResult
  func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int

  /// Runs `sql` and calls `body` with each row it returns, in order.
  func forEach(_ sql: String, _ arguments: [any SQLArgument], _ body: (SQLRow) throws -> Void)
    throws
}

extension SQLSession {
  /// Runs `sql` without arguments; returns how many rows it changed.
  @discardableResult
  func execute(_ sql: String) throws -> Int { try execute(sql, []) }

  /// Every row `sql` returns.
  func rows(_ sql: String, _ arguments: [any SQLArgument] = []) throws -> [SQLRow] {
    var rows: [SQLRow] = []
    try forEach(sql, arguments) { rows.append($0) }
    return rows
  }

  /// The first row `sql` returns, if any.
  func row(_ sql: String, _ arguments: [any SQLArgument] = []) throws -> SQLRow? {
    try rows(sql, arguments).first
  }

  /// The first column of every row `sql` returns.
  func values<T: SQLColumn>(
    _ type: T.Type, _ sql: String, _ arguments: [any SQLArgument] = []
  ) throws -> [T] {
    try rows(sql, arguments).map { try $0.first() }
  }

  /// The first column of the first row `sql` returns; nil if no row, or a NULL there.
  func value<T: SQLColumn>(
    _ type: T.Type, _ sql: String, _ arguments: [any SQLArgument] = []
  ) throws -> T? {
    guard let row = try row(sql, arguments) else { return nil }
    let value: T? = try row.first()
    return value
  }
}
