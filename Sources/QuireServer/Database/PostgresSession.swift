import Dispatch
import Logging
import NIOCore
import PostgresNIO
import QuireSyncProtocol
import Synchronization

/// One PostgreSQL connection inside a transaction: `?` marks become `$1`, `$2`, …; integers
/// bind as `int8`, reals as `float8`, bytes as `bytea`; results come back as ``SQLValue``s
/// (a `bool` as 0 or 1).
///
/// BEGIN is pipelined with the first statement, and a read-only transaction's COMMIT is sent
/// without waiting for its answer (the connection runs what follows on it in order): a read of
/// one statement costs one round trip, not three — each round trip is a wait on this thread.
final class PostgresSession: SQLSession {
  let connection: PostgresConnection
  let logger: Logger
  let byteOrder = " COLLATE \"C\""
  /// The transaction's BEGIN, sent and not yet answered.
  private var begun: EventLoopFuture<PostgresQueryResult>?
  /// What to tell the other replicas when the transaction commits (`replica key`).
  var announcement: String?
  /// Whether BEGIN failed: then nothing of the transaction ran.
  private(set) var beginFailed = false
  /// How long each statement's answer is waited for, in seconds.
  private let patience: Int

  /// A session on `connection` whose statements are waited for at most `patience` seconds
  /// each: then PostgreSQL is taken as gone, the connection closed, and the request can be
  /// retried.
  init(connection: PostgresConnection, logger: Logger, patience: Int = 30) {
    self.connection = connection
    self.logger = logger
    self.patience = patience
  }

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

  /// Starts a transaction with `sql`; its answer is waited for with the first statement's.
  func begin(_ sql: String) {
    begun = connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
  }

  /// Ends the transaction: waits for COMMIT's answer when `durable` (a write is not done until
  /// PostgreSQL says so), else only sends it.
  func commit(durable: Bool) throws {
    if durable, let announcement {
      // The notification rides in the transaction (PostgreSQL delivers it at COMMIT), sent with
      // COMMIT: no round trip of its own. If it failed, COMMIT only rolls back: say so.
      var binds = PostgresBindings(capacity: 2)
      binds.append(PostgresMetadata.channel)
      binds.append(announcement)
      let notified = connection.query(
        PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds), logger: logger)
      let committed = try run("COMMIT", [])
      _ = try Self.wait(notified, seconds: patience)
      guard committed.metadata.command == "COMMIT" else {
        throw SyncError(.unavailable, "PostgreSQL rolled the commit back; it can be retried.")
      }
    } else if durable {
      _ = try execute("COMMIT", [])
    } else {
      try awaitBegin()
      _ = connection.query(PostgresQuery(unsafeSQL: "COMMIT"), logger: logger)
    }
  }

  /// Waits for BEGIN's answer, at most 5 s: a pooled connection whose server went away can take
  /// long to notice it, and BEGIN never takes long otherwise.
  private func awaitBegin() throws {
    guard let begun else { return }
    self.begun = nil
    do {
      _ = try Self.wait(begun, seconds: 5)
    } catch {
      beginFailed = true
      if error is SyncError { PostgresMetadata.close(connection) }
      throw error
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
    let answer = connection.query(
      PostgresQuery(unsafeSQL: Self.numbered(sql), binds: binds), logger: logger)
    try awaitBegin()
    do {
      return try Self.wait(answer, seconds: patience)
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
