import Dispatch
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One PostgreSQL connection inside a transaction: `?` marks become `$1`, `$2`, …; integers
/// bind as `int8`, reals as `float8`, bytes as `bytea`; results come back as ``SQLValue``s
/// (a `bool` as 0 or 1).
struct PostgresSession: SQLSession {
  let connection: PostgresConnection
  let logger: Logger

  func execute(_ sql: String, _ arguments: [any SQLArgument]) throws -> Int {
    try run(sql, arguments).metadata.rows ?? 0
  }

  func forEach(_ sql: String, _ arguments: [any SQLArgument], _ body: (SQLRow) throws -> Void)
    throws
  {
    for row in try run(sql, arguments).rows {
      try body(SQLRow(row.map { ($0.columnName, Self.value($0)) }))
    }
  }

  private func run(_ sql: String, _ arguments: [any SQLArgument]) throws -> PostgresQueryResult {
    var binds = PostgresBindings(capacity: arguments.count)
    for argument in arguments {
      switch argument.sqlValue {
      case .null: binds.appendNull()
      case .integer(let value): binds.append(value)
      case .real(let value): binds.append(value)
      case .text(let value): binds.append(value)
      case .blob(let value): binds.append(ByteBuffer(bytes: value))
      }
    }
    let query = PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds)
    return try Self.wait(connection.query(query, logger: logger))
  }

  /// `sql` with each `?` outside quotes numbered `$1`, `$2`, … as PostgreSQL wants.
  static func numbered(_ sql: String) -> String {
    var result = ""
    result.reserveCapacity(sql.utf8.count + 16)
    var number = 0
    var quoted = false
    for character in sql {
      if character == "'" { quoted.toggle() }
      if character == "?" && !quoted {
        number += 1
        result += "$\(number)"
      } else {
        result.append(character)
      }
    }
    return result
  }

  private static func value(_ cell: PostgresCell) -> SQLValue {
    guard cell.bytes != nil else { return .null }
    switch cell.dataType {
    case .int2, .int4, .int8:
      return (try? cell.decode(Int64.self)).map(SQLValue.integer) ?? .null
    case .bool:
      return (try? cell.decode(Bool.self)).map { .integer($0 ? 1 : 0) } ?? .null
    case .float4, .float8, .numeric:
      return (try? cell.decode(Double.self)).map(SQLValue.real) ?? .null
    case .bytea:
      return (try? cell.decode(ByteBuffer.self)).map { .blob(Array($0.readableBytesView)) }
        ?? .null
    default:
      return (try? cell.decode(String.self)).map(SQLValue.text) ?? .null
    }
  }

  /// Waits on this thread (never an event loop's) for `future`.
  static func wait<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    future.whenComplete { outcome in
      result.withLock { $0 = outcome }
      done.signal()
    }
    done.wait()
    return try result.withLock { $0! }.get()
  }
}
