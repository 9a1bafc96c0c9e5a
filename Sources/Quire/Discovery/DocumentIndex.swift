import Foundation
import GRDB
import Synchronization

/// The persistent index that ``DocumentQuery`` runs against: every item its queries have found,
/// kept in SQLite (through GRDB) in the user's data directory — the role of the Spotlight index.
///
/// A query whose scope was gathered before reports the indexed items at once, then reconciles
/// them with the disk in the background and reports the difference as an update; live changes
/// are written back as they are reported. The database is in write-ahead-log mode, so a crash or
/// SIGKILL at any moment leaves it consistent; if it is deleted, the next query gathers from the
/// disk again, and if it is damaged, it is set aside and rebuilt.
///
/// ```swift
/// let query = DocumentQuery(scopes: [library], index: try DocumentIndex(url: indexFile))
/// ```
public final class DocumentIndex: Sendable {
  /// Where the database is.
  public let url: URL
  /// How long to wait for another writer of the database (another process's query, say).
  private let busyTimeout: TimeInterval
  private let state: Mutex<State>

  private struct State {
    var pool: DatabasePool?
    var pending: [Change] = []
    var draining = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  /// One write waiting for the writer: items to store and paths (with everything under them)
  /// to forget; or a scope whose gather is complete.
  struct Change: Sendable {
    var upserts: [DocumentQuery.Item] = []
    var removals: [String] = []
    var gatheredScope: String?
  }

  /// The index every query uses unless told otherwise: `$XDG_DATA_HOME/quire/index.sqlite`.
  public static let shared = DocumentIndex(
    unopenedAt: XDGDirectory.data.appendingPathComponent("index.sqlite"))

  /// Opens (or creates) the index at `url`; its folder is created if needed.
  public convenience init(url: URL) throws(QuireError) {
    try self.init(url: url, busyTimeout: 10)
  }

  /// Opens the index at `url`, waiting at most `busyTimeout` seconds for another writer.
  init(url: URL, busyTimeout: TimeInterval) throws(QuireError) {
    self.url = url.standardizedFileURL
    self.busyTimeout = busyTimeout
    state = Mutex(State())
    _ = try database()
  }

  /// The index at `url`, opened at its first use (as ``shared`` is).
  init(unopenedAt url: URL, busyTimeout: TimeInterval = 10) {
    self.url = url
    self.busyTimeout = busyTimeout
    state = Mutex(State())
  }

  /// The items under `scope` if a gather of it completed before, else nil. A damaged database
  /// is rebuilt (and nil returned).
  func items(under scope: String) async -> [DocumentQuery.Item]? {
    do {
      let pool = try database()
      return try await pool.read { db -> [DocumentQuery.Item]? in
        let gathered = try Bool.fetchOne(
          db, sql: "SELECT 1 FROM scope WHERE path = ?", arguments: [scope])
        guard gathered == true else { return nil }
        return try IndexRows.items(under: scope, in: db)
      }
    } catch {
      recover(from: error)
      return nil
    }
  }

  /// The paths of indexed items with `identity` (one indexed lookup: fast enough to call from
  /// anywhere).
  public func paths(withIdentity identity: String) -> [String] {
    do {
      return try database().read { db in
        try String.fetchAll(
          db, sql: "SELECT path FROM item WHERE identity = ?", arguments: [identity])
      }
    } catch {
      recover(from: error)
      return []
    }
  }

  /// Queues `change` for the writer; changes are written in the order they are queued.
  func enqueue(_ change: Change) {
    let start = state.withLock { state -> Bool in
      state.pending.append(change)
      guard !state.draining else { return false }
      state.draining = true
      return true
    }
    if start { Task.detached { await self.drain() } }
  }

  /// Waits until every change queued so far is written.
  public func flush() async {
    await withCheckedContinuation { continuation in
      let done = state.withLock { state -> Bool in
        guard state.draining else { return true }
        state.waiters.append(continuation)
        return false
      }
      if done { continuation.resume() }
    }
  }

  /// Checks the whole database; a damaged one is set aside and rebuilt. Returns whether it was
  /// sound.
  @discardableResult
  public func verify() async -> Bool {
    do {
      let result = try await database().read { db in
        try String.fetchOne(db, sql: "PRAGMA quick_check")
      }
      if result == "ok" { return true }
      recover(from: QuireError(.corruptPackage, "quick_check: \(result ?? "no answer")"))
    } catch {
      recover(from: error)
    }
    return false
  }

  private func drain() async {
    while true {
      let batch = state.withLock { state -> [Change] in
        let batch = state.pending
        state.pending = []
        if batch.isEmpty { state.draining = false }
        return batch
      }
      if batch.isEmpty { break }
      do {
        try await database().write { db in
          for change in batch { try IndexRows.apply(change, in: db) }
        }
      } catch {
        recover(from: error)
      }
    }
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      defer { state.waiters = [] }
      return state.draining ? [] : state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  // MARK: The database

  private func database() throws(QuireError) -> DatabasePool {
    if let pool = state.withLock({ $0.pool }) { return pool }
    let pool = try open()
    return state.withLock { state in
      if let existing = state.pool { return existing }
      state.pool = pool
      return pool
    }
  }

  private func open() throws(QuireError) -> DatabasePool {
    do {
      return try IndexRows.openPool(at: url, busyTimeout: busyTimeout)
    } catch {
      // Damaged beyond opening: set it aside and start again. One that is only busy (another
      // writer held it past the timeout) or unreadable is sound, and is kept.
      guard Self.isDamage(error) else {
        let busy = (error as? DatabaseError).map {
          [.SQLITE_BUSY, .SQLITE_LOCKED].contains($0.resultCode)
        }
        throw QuireError(
          busy == true ? .timedOut : .ioError,
          "Could not open the document index at \(url.path). Check that it and its folder are "
            + "writable, and try again: another program may have kept it busy.",
          path: url.path, cause: error)
      }
      setAside()
      do {
        return try IndexRows.openPool(at: url, busyTimeout: busyTimeout)
      } catch {
        throw QuireError(
          .ioError,
          "Could not open the document index at \(url.path). Check that its folder is writable.",
          path: url.path, cause: error)
      }
    }
  }

  /// After an error from the database: if it is damaged (or gone), set it aside so the next use
  /// starts a new one.
  private func recover(from error: any Error) {
    guard Self.isDamage(error) else { return }
    let pool = state.withLock { state -> DatabasePool? in
      defer { state.pool = nil }
      return state.pool
    }
    try? pool?.close()
    setAside()
  }

  /// Whether `error` says the database itself is damaged (or gone), rather than busy. A failed
  /// open (``open()``'s own error) is not: it set a damaged file aside already, or found the
  /// file busy or out of reach, which a later use tries again.
  private static func isDamage(_ error: any Error) -> Bool {
    if let error = error as? DatabaseError {
      return [.SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_IOERR, .SQLITE_READONLY].contains(
        error.resultCode)
    }
    return (error as? QuireError)?.code == .corruptPackage
  }

  private func setAside() {
    let manager = FileManager.default
    for suffix in ["", "-wal", "-shm"] {
      let file = URL(fileURLWithPath: url.path + suffix)
      guard manager.fileExists(atPath: file.path) else { continue }
      if suffix.isEmpty {
        let damaged = URL(fileURLWithPath: url.path + ".damaged")
        try? manager.removeItem(at: damaged)
        try? manager.moveItem(at: file, to: damaged)
      } else {
        try? manager.removeItem(at: file)
      }
    }
  }
}
