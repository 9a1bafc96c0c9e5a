import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import QuireSyncProtocol
import Synchronization

/// Metadata in PostgreSQL, through postgres-nio, shared by every replica of the server.
///
/// The store's transactions are synchronous (as GRDB's are), so each one takes a connection
/// from a small pool and waits for each statement's answer on the calling thread; the
/// connections' I/O runs on an event loop of their own, never on the thread that waits. Every
/// write transaction first takes one transaction-scoped advisory lock, so writes are serialized
/// across replicas exactly as SQLite serializes them, and journal sequences are allocated in
/// commit order. A connection that fails is closed and replaced by the next transaction, so a
/// restarted PostgreSQL costs the requests in flight a retryable error, nothing more.
///
/// Replicas tell each other of commits with `NOTIFY quire_journal` (a hint: the journal stays
/// the truth).
final class PostgresMetadata: MetadataDatabase {
  let engine = "PostgreSQL"
  private let configuration: PostgresConnection.Configuration
  private let address: String
  private let idle = Mutex<[PostgresConnection]>([])
  private let slots: DispatchSemaphore
  private let logger = Logger(label: "quire-server.postgres") { _ in SwiftLogNoOpLogHandler() }
  private let nextID = Atomic<Int>(0)
  /// This replica, so it skips its own announcements.
  private let replica = UUID().uuidString
  static let channel = "quire_journal"
  /// The connections' own event loops: a transaction waits on its caller's thread, which may be
  /// one of the HTTP server's event loops, so the database's I/O must never run on those.
  private static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)
  private static let writeLock: Int64 = 0x5155_4952_4501  // "QUIRE" 1

  /// Connects to `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) and makes or migrates
  /// the server's tables; at most `connections` at once.
  init(url: URL, connections: Int = 8) throws {
    address = Self.redacted(url)
    var configuration = try Self.configuration(url)
    configuration.options.connectTimeout = .seconds(5)
    self.configuration = configuration
    slots = DispatchSemaphore(value: connections)
    try write { db in try PostgresSchema.migrate(db) }
  }

  deinit {
    for connection in idle.withLock({ $0 }) { Self.close(connection) }
  }

  func read<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try transaction("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
  }

  func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try transaction(
      "BEGIN",
      { db in
        try db.execute("SELECT pg_advisory_xact_lock(?)", [Self.writeLock])
        return try body(db)
      })
  }

  func setting(_ key: String) throws -> String? {
    try read { try $0.value(String.self, "SELECT value FROM settings WHERE key = ?", [key]) }
  }

  func setSetting(_ key: String, _ value: String) throws {
    _ = try write {
      try $0.execute(
        "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        [key, value])
    }
  }

  func announce(_ key: String) {
    _ = try? withConnection { connection in
      try PostgresSession(connection: connection, logger: logger).execute(
        "SELECT pg_notify(?, ?)", [Self.channel, replica + " " + key])
    }
  }

  func listen(_ wake: @escaping @Sendable (String?) -> Void) async {
    while !Task.isCancelled {
      do {
        let connection = try await PostgresConnection.connect(
          on: Self.loops.any(), configuration: configuration,
          id: nextID.add(1, ordering: .relaxed).newValue, logger: logger
        ).get()
        do {
          try await connection.listen(on: Self.channel) { notifications in
            wake(nil)  // what was announced while not listening is read from the journal now
            for try await notification in notifications {
              let parts = notification.payload.split(separator: " ", maxSplits: 1)
              if parts.count == 2, parts[0] != replica { wake(String(parts[1])) }
            }
          }
        } catch {
          try? await connection.close()
          throw error
        }
        try? await connection.close()
      } catch {
        logger.warning("Lost the PostgreSQL notifications of \(address): \(error)")
      }
      // The pause between reconnection attempts while PostgreSQL is down.
      try? await Task.sleep(for: .milliseconds(250))
    }
  }

  /// Runs `body` between `begin` and COMMIT on a pooled connection; ROLLBACK if it throws. A
  /// pooled connection found dead at BEGIN (PostgreSQL restarted since) is replaced, and the
  /// transaction starts again on a new one: nothing of it had run.
  private func transaction<T>(_ begin: String, _ body: (any SQLSession) throws -> T) throws -> T {
    var attempt = 0
    while true {
      do {
        return try transactionOnce(begin, body)
      } catch let stale as StaleConnection {
        attempt += 1
        if attempt > 16 { throw stale.error }
      }
    }
  }

  /// A pooled connection that failed at BEGIN because it was closed (or stopped answering, and
  /// was closed for it).
  private struct StaleConnection: Error {
    var error: any Error
  }

  private func transactionOnce<T>(_ begin: String, _ body: (any SQLSession) throws -> T) throws
    -> T
  {
    try withConnection { connection in
      let session = PostgresSession(connection: connection, logger: logger)
      do {
        try session.begin(begin)
      } catch {
        if connection.isClosed { throw StaleConnection(error: error) }
        throw error
      }
      do {
        let result = try body(session)
        try session.execute("COMMIT")
        return result
      } catch {
        _ = try? session.execute("ROLLBACK")
        throw error
      }
    }
  }

  /// Runs `body` with a connection of the pool (opened if none is idle), which goes back to the
  /// pool unless it was closed meanwhile.
  private func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
    slots.wait()
    defer { slots.signal() }
    let connection: PostgresConnection
    if let reused = idle.withLock({ $0.popLast() }) {
      connection = reused
    } else {
      do {
        connection = try PostgresSession.wait(
          PostgresConnection.connect(
            on: Self.loops.any(), configuration: configuration,
            id: nextID.add(1, ordering: .relaxed).newValue, logger: logger), seconds: 10)
      } catch {
        throw SyncError(
          .unavailable,
          "The server could not reach its PostgreSQL database at \(address): \(String(reflecting: error)). Check that PostgreSQL runs and the address is right; the request can be retried.",
          cause: error)
      }
    }
    defer {
      if connection.isClosed {
        Self.close(connection)
      } else {
        idle.withLock { $0.append(connection) }
      }
    }
    return try body(connection)
  }

  /// Closes `connection` and waits until it is (postgres-nio wants every connection closed
  /// before it goes).
  static func close(_ connection: PostgresConnection) {
    let closing: EventLoopFuture<Void> = connection.close()
    _ = try? PostgresSession.wait(closing, seconds: 5)
  }

  /// `url` without its password, for messages.
  static func redacted(_ url: URL) -> String {
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return "the database"
    }
    if parts.password != nil { parts.password = "…" }
    return parts.string ?? "the database"
  }

  /// The connection settings of `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (the user
  /// defaults to `postgres`, the port to 5432; `?host=/path` connects through a Unix socket
  /// in that folder).
  static func configuration(_ url: URL) throws -> PostgresConnection.Configuration {
    guard let parts = URLComponents(url: url, resolvingAgainstBaseURL: false),
      ["postgres", "postgresql"].contains(parts.scheme ?? "")
    else {
      throw SyncError(
        .malformed,
        "“\(redacted(url))” is not a PostgreSQL address: use postgres://USER:PASSWORD@HOST:PORT/DATABASE."
      )
    }
    let user = parts.user?.removingPercentEncoding ?? "postgres"
    let password = parts.password?.removingPercentEncoding
    let database = parts.path.isEmpty ? nil : String(parts.path.dropFirst())
    if let socketFolder = parts.queryItems?.first(where: { $0.name == "host" })?.value {
      let port = parts.port ?? 5432
      return PostgresConnection.Configuration(
        unixSocketPath: "\(socketFolder)/.s.PGSQL.\(port)", username: user, password: password,
        database: database)
    }
    return PostgresConnection.Configuration(
      host: parts.host ?? "127.0.0.1", port: parts.port ?? 5432, username: user,
      password: password, database: database, tls: .disable)
  }
}
