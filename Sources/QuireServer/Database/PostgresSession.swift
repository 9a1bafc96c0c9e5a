import Dispatch
import Logging
import NIOCore
import PostgresNIO
import QuireSyncProtocol
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

  /// Starts a transaction with `sql`, waiting at most 5 s: a pooled connection whose server went
  /// away can take long to notice it, and BEGIN never takes long otherwise.
  func begin(_ sql: String) throws {
    _ = try run(sql, [], seconds: 5)
  }

  private func run(_ sql: String, _ arguments: [any SQLArgument], seconds: Int = 30) throws
    -> PostgresQueryResult
  {
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
    do {
      return try Self.wait(connection.query(query, logger: logger), seconds: seconds)
    } catch let error as SyncError {
      PostgresMetadata.close(connection)  // it may be half-way through an answer: not reused
      throw error
    }
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

  /// Waits on this thread (never an event loop's) for `future`, at most `seconds`: a
  /// PostgreSQL that stopped answering (shutting down, or a connection cut without a reset)
  /// becomes a retryable error rather than a request that hangs.
  static func wait<T: Sendable>(_ future: EventLoopFuture<T>, seconds: Int = 30) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<T, any Error>?>(nil)
    future.whenComplete { outcome in
      result.withLock { $0 = outcome }
      done.signal()
    }
    guard done.wait(timeout: .now() + .seconds(seconds)) == .success else {
      throw SyncError(
        .unavailable, "PostgreSQL did not answer within \(seconds) s; the request can be retried.")
    }
    return try result.withLock { $0! }.get()
  }
}
