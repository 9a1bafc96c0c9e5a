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
/// from a small pool and waits for each statement's answer on the calling thread — one of the
/// ``BlockingExecutor``'s, where the server runs its requests then; the connections' I/O runs on
/// an event loop of their own, never on the thread that waits. BEGIN goes out with the first
/// statement, and a read's COMMIT without waiting (see ``PostgresSession``).
///
/// Writes are ordered by transaction-scoped advisory locks. A commit takes the write lock shared
/// and its account's container's lock until COMMIT, so commits to different containers run side
/// by side (and share WAL flushes), while one container's commits run one at a time, on every
/// replica: a container's journal sequences come in its commit order, and every journal read is
/// of one container. Every other write takes the write lock alone, exactly as SQLite
/// serializes writes. An upload's chunk rows need neither. A connection that fails is closed and
/// replaced by the next transaction, so a restarted PostgreSQL costs the requests in flight a
/// retryable error, nothing more.
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
  /// Taken by every write: alone (exclusive), or beside other commits (shared) by a commit.
  private static let writeLock: Int64 = 0x5155_4952_4501  // "QUIRE" 1

  /// Connects to `url` (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`) and makes or migrates
  /// the server's tables; at most `connections` at once.
  init(url: URL, connections: Int = 16) throws {
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

  /// A pooled connection found closed (PostgreSQL restarted since) is replaced and the read
  /// made again: reading twice changes nothing.
  func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try statement(patience: 5, body)
  }

  /// Without BEGIN and COMMIT: PostgreSQL commits a lone statement, durably, before it answers.
  /// A pooled connection found closed is replaced and the statement sent again.
  func writeStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try statement(patience: 30, body)
  }

  /// Runs `body`'s one statement outside a transaction, on a pooled connection; once more on
  /// another if the connection turns out closed.
  private func statement<T>(patience: Int, _ body: (any SQLSession) throws -> T) throws -> T {
    var attempt = 0
    while true {
      do {
        return try withConnection { connection in
          do {
            return try body(
              PostgresSession(connection: connection, logger: logger, patience: patience))
          } catch {
            if connection.isClosed { throw StaleConnection(error: error) }
            throw error
          }
        }
      } catch let stale as StaleConnection {
        attempt += 1
        if attempt > 16 { throw stale.error }
      }
    }
  }

  func write<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try transaction(
      "BEGIN",
      { db in
        try db.execute("SELECT pg_advisory_xact_lock(?)", [Self.writeLock])
        return try body(db)
      })
  }

  /// The write lock shared with other commits, and the scope's own lock, until COMMIT. Measured
  /// with 2000 devices on two replicas, holding the one write lock for a whole commit (a dozen
  /// round trips) queued some 30 transactions behind it and put notifications seconds late; a
  /// lock on the whole journal from its entry to COMMIT kept commits to different containers
  /// from sharing a WAL flush, and the notification p99 at 180–520 ms (120–195 ms without).
  func writeCommit<T>(scope: String, _ body: (any SQLSession) throws -> T) throws -> T {
    try transaction(
      "BEGIN", announcing: replica + " " + scope,
      { db in
        try db.execute(
          "SELECT pg_advisory_xact_lock_shared(?), pg_advisory_xact_lock(?)",
          [Self.writeLock, Self.key(scope)])
        return try body(db)
      })
  }

  /// A lock key for `text` (FNV-1a): a collision only makes two scopes wait for each other.
  static func key(_ text: String) -> Int64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in text.utf8 {
      hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
    }
    return Int64(bitPattern: hash)
  }

  /// Without the journal's advisory lock: row locks and `ON CONFLICT` order such writes, and a
  /// commit checks its chunks under the lock.
  func writeOutsideJournal<T>(_ body: (any SQLSession) throws -> T) throws -> T {
    try transaction("BEGIN", body)
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

  /// Sends the notification without waiting for its answer: it is a hint, and the connection
  /// runs what follows on it in order.
  func announce(_ key: String) {
    _ = try? withConnection { connection in
      var binds = PostgresBindings(capacity: 2)
      binds.append(Self.channel)
      binds.append(replica + " " + key)
      _ = connection.query(
        PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds), logger: logger)
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
  private func transaction<T>(
    _ begin: String, announcing: String? = nil,
    _ body: (any SQLSession) throws -> T
  ) throws -> T {
    var attempt = 0
    while true {
      do {
        return try transactionOnce(begin, announcing: announcing, body)
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

  private func transactionOnce<T>(
    _ begin: String, announcing: String?, _ body: (any SQLSession) throws -> T
  ) throws -> T {
    try withConnection { connection in
      let session = PostgresSession(connection: connection, logger: logger)
      session.announcement = announcing
      session.begin(begin)
      do {
        let result = try body(session)
        try session.commit(durable: !begin.hasSuffix("READ ONLY"))
        return result
      } catch {
        if session.beginFailed {
          if connection.isClosed { throw StaleConnection(error: error) }
          throw error
        }
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
