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

  /// What makes a text comparison byte by byte (as paths sort): nothing in SQLite, whose
  /// default is, and ` COLLATE "C"` in PostgreSQL, whose database's locale may not be.
  var byteOrder: String { get }
}

extension SQLSession {
  /// Runs `sql` without arguments; returns how many rows it changed.
  @discardableResult
  func execute(_ sql: String) throws -> Int { try execute(sql, []) }

  /// The condition that `column` starts with a prefix, for the four arguments
  /// ``startsWithArguments(_:)`` makes: a range of an index on `column`, then the exact test.
  func startsWith(_ column: String) -> String {
    "\(column) >= ?\(byteOrder) AND \(column) < ?\(byteOrder) AND substr(\(column), 1, length(?)) = ?"
  }

  /// The arguments of ``startsWith(_:)`` for `prefix`, which ends with "/" (the range's end is
  /// the same text with "0", the byte after "/").
  func startsWithArguments(_ prefix: String) -> [any SQLArgument] {
    // As bytes: "x\u{600}/" does not end with the character "/" (U+0600 joins what follows).
    precondition(prefix.utf8.last == UInt8(ascii: "/"), "a folder prefix ends with /")
    let end = String(decoding: prefix.utf8.dropLast(), as: UTF8.self) + "0"
    return [prefix, end, prefix, prefix]
  }

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
