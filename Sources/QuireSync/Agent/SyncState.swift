import Foundation
import QuireCore
import GRDB
import Quire
import QuireSyncProtocol

/// The agent's durable memory, in SQLite: the synced tree (item and member rows), the journal
/// cursor, and each item's state for `quire sync status`. Every update is one transaction, so
/// the agent can be killed at any moment and resume.
final class SyncState: Sendable {
  let database: DatabaseQueue
  /// The state file's path.
  private let path: String

  /// The state in `file`, opened read-only (no migration, no write lock): what `quire sync
  /// status` reads while the agent runs.
  init(readingOnly file: URL) throws(SyncError) {
    do {
      var configuration = Configuration()
      configuration.readonly = true
      configuration.busyMode = .timeout(10)
      path = file.path
      database = try DatabaseQueue(path: file.path, configuration: configuration)
    } catch {
      throw SyncError(
        .unavailable, "Could not read the sync state in “\(file.path)”: \(error).", cause: error)
    }
  }

  init(file: URL) throws(SyncError) {
    do {
      try Sys.makeFolders(file.deletingLastPathComponent().path)
      // WAL with synchronous=NORMAL: a transaction is one append, fsynced at checkpoints, not
      // three fsyncs. A killed agent loses nothing (the WAL is in the page cache); a power cut
      // may lose the last few records, which the agent re-learns from the folder and the
      // server's journal (uploads and downloads are idempotent by content hash).
      var configuration = Configuration()
      // Another process may hold the database a moment (`quire sync status`, the app's status
      // reader): wait for it rather than fail the agent's transaction.
      configuration.busyMode = .timeout(10)
      configuration.prepareDatabase { db in
        try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
      }
      path = file.path
      database = try DatabaseQueue(path: file.path, configuration: configuration)
      var migrator = DatabaseMigrator()
      migrator.registerMigration("v1") { db in
        try db.execute(
          sql: """
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE synced(item TEXT PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL,
              revision INTEGER NOT NULL);
            CREATE TABLE syncedMembers(item TEXT NOT NULL, path TEXT NOT NULL, record BLOB NOT NULL,
              PRIMARY KEY(item, path)) WITHOUT ROWID;
            CREATE TABLE status(item TEXT PRIMARY KEY, path TEXT NOT NULL, state TEXT NOT NULL,
              error TEXT);
            """)
      }
      // v2: an error's code beside its message, and the conflict copies the agent made (for
      // ``SyncStatusSource``'s `hasUnresolvedConflicts`).
      migrator.registerMigration("v2") { db in
        try db.execute(
          sql: """
            ALTER TABLE status ADD COLUMN code TEXT;
            CREATE TABLE conflicts(copy TEXT PRIMARY KEY, item TEXT NOT NULL);
            """)
      }
      // v3: the remote tree at the cursor — each item's latest revision, path and whether it
      // is deleted, as the journal said — beside the synced tree, so what the server holds is
      // known without asking it (the local tree is the folder itself, scanned at start).
      migrator.registerMigration("v3") { db in
        try db.execute(
          sql: """
            CREATE TABLE remote(item TEXT PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL,
              revision INTEGER NOT NULL, deleted INTEGER NOT NULL);
            """)
      }
      // v4: each remote item's unresolved conflict revisions (comma-separated; NULL: none), as
      // the journal last reported them.
      migrator.registerMigration("v4") { db in
        try db.execute(sql: "ALTER TABLE remote ADD COLUMN conflicts TEXT")
      }
      // v5: items that are only placeholders on this device (on-demand downloads).
      migrator.registerMigration("v5") { db in
        try db.execute(
          sql: "ALTER TABLE synced ADD COLUMN placeholder INTEGER NOT NULL DEFAULT 0")
      }
      // v6: a download's progress (bytes done and total), for `percentDownloaded`.
      migrator.registerMigration("v6") { db in
        try db.execute(
          sql: """
            ALTER TABLE status ADD COLUMN done INTEGER;
            ALTER TABLE status ADD COLUMN total INTEGER;
            """)
      }
      try migrator.migrate(database)
    } catch {
      throw SyncError(
        .unavailable, "Could not open the sync state in “\(file.path)”: \(error).", cause: error)
    }
  }

  func value(_ key: String) -> String? {
    try? database.read {
      try String.fetchOne($0, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }
  }

  func setValue(_ value: String?, for key: String) {
    try? write { db in
      if let value {
        try db.execute(
          sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
      } else {
        try db.execute(sql: "DELETE FROM meta WHERE key = ?", arguments: [key])
      }
    }
  }

  /// Adds `bytes` to the counter `key` (`uploadedBytes`, `downloadedBytes`).
  func count(_ bytes: Int, in key: String) {
    guard bytes > 0 else { return }
    try? write { db in
      try db.execute(
        sql: """
          INSERT INTO meta(key, value) VALUES (?, ?)
          ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value
          """, arguments: [key, String(bytes)])
    }
  }

  /// Runs `updates` as one transaction, then sets the state file's time.
  ///
  /// Readers in other processes (the app's statuses) wake on the state folder's events. The
  /// transaction's own write to the WAL file raises one before the commit is visible: SQLite
  /// publishes it in the WAL index, in shared memory, which raises none. A reader woken then
  /// read the state before the commit and heard nothing after it (a device's Conflicts button
  /// stayed grey with the conflict recorded). The time is set once the commit returns, so a
  /// reader woken by it reads the transaction. A failure to set it loses only that wake-up.
  @discardableResult
  private func write<T>(_ updates: (Database) throws -> T) throws -> T {
    let result = try database.write(updates)
    try? Sys.touch(path)
    return result
  }

  var cursor: Int64 {
    value("cursor").flatMap { Int64($0) } ?? 0
  }

  /// Every synced item (members included).
  func syncedItems() throws -> [String: SyncedItem] {
    try database.read { db in
      var items: [String: SyncedItem] = [:]
      for row in try Row.fetchAll(db, sql: "SELECT * FROM synced") {
        let id: String = row["item"]
        items[id] = SyncedItem(
          id: id, path: row["path"], kind: ItemKind(rawValue: row["kind"]) ?? .file,
          revision: row["revision"], members: [:], isPlaceholder: row["placeholder"])
      }
      let decoder = JSONDecoder()
      for row in try Row.fetchAll(db, sql: "SELECT * FROM syncedMembers") {
        let id: String = row["item"]
        items[id]?.members[row["path"]] = try decoder.decode(
          SyncedItem.Member.self, from: row["record"] as Data)
      }
      return items
    }
  }

  /// Every synced item, as the agent holds them (``SyncedTree``): read as one ordered join, an
  /// item at a time, so the rows of a hundred thousand items are never all in memory at once.
  func syncedTree() throws -> SyncedTree {
    try database.read { db in
      var tree = SyncedTree()
      var current: SyncedItem?
      let decoder = JSONDecoder()
      let rows = try Row.fetchCursor(
        db,
        sql: """
          SELECT s.item, s.path, s.kind, s.revision, s.placeholder, m.path AS member, m.record
          FROM synced s LEFT JOIN syncedMembers m ON m.item = s.item ORDER BY s.item
          """)
      while let row = try rows.next() {
        let id: String = row["item"]
        if current?.id != id {
          if let done = current { tree[done.id] = done }
          current = SyncedItem(
            id: id, path: row["path"], kind: ItemKind(rawValue: row["kind"]) ?? .file,
            revision: row["revision"], members: [:], isPlaceholder: row["placeholder"])
        }
        if let member: String = row["member"] {
          current?.members[member] = try decoder.decode(
            SyncedItem.Member.self, from: row["record"] as Data)
        }
      }
      if let done = current { tree[done.id] = done }
      return tree
    }
  }

  /// Records `item` as synced: its row, the members `changed` and `removed` (only those: the
  /// cost follows the change), and optionally the cursor, in one transaction.
  func record(
    _ item: SyncedItem, changed: [String], removed: [String], cursor: Int64? = nil
  ) throws {
    try record([(item, changed, removed)], clearingStatus: false, cursor: cursor)
  }

  /// Records several items as synced in one transaction (a first sync of thousands of small
  /// documents is a transaction per batch, not several per document); with `clearingStatus`,
  /// their `quire sync status` rows go in the same transaction.
  func record(
    _ items: [(item: SyncedItem, changed: [String], removed: [String])], clearingStatus: Bool,
    cursor: Int64? = nil
  ) throws {
    guard !items.isEmpty || cursor != nil else { return }
    try write { db in
      try Self.record(db, items, clearingStatus: clearingStatus)
      if let cursor {
        try db.execute(
          sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('cursor', ?)",
          arguments: [String(cursor)])
      }
    }
  }

  private static func record(
    _ db: Database,
    _ items: some Sequence<(item: SyncedItem, changed: [String], removed: [String])>,
    clearingStatus: Bool
  ) throws {
    let encoder = JSONEncoder()
    let row = try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO synced(item, path, kind, revision, placeholder)
        VALUES (?, ?, ?, ?, ?)
        """)
    let drop = try db.cachedStatement(
      sql: "DELETE FROM syncedMembers WHERE item = ? AND path = ?")
    let put = try db.cachedStatement(
      sql: "INSERT OR REPLACE INTO syncedMembers(item, path, record) VALUES (?, ?, ?)")
    let clear = try db.cachedStatement(sql: "DELETE FROM status WHERE item = ?")
    for (item, changed, removed) in items {
      try row.execute(arguments: [
        item.id, item.path, item.kind.rawValue, item.revision, item.isPlaceholder,
      ])
      for path in removed { try drop.execute(arguments: [item.id, path]) }
      for path in changed {
        guard let member = item.members[path] else { continue }
        try put.execute(arguments: [item.id, path, try encoder.encode(member)])
      }
      if clearingStatus { try clear.execute(arguments: [item.id]) }
    }
  }

  /// Forgets `item` (deleted on one side and the other).
  func forget(_ item: String) throws {
    try write { db in
      try db.execute(sql: "DELETE FROM synced WHERE item = ?", arguments: [item])
      try db.execute(sql: "DELETE FROM syncedMembers WHERE item = ?", arguments: [item])
      try db.execute(sql: "DELETE FROM status WHERE item = ?", arguments: [item])
    }
  }

  /// Moves the cursor past `entries` (in journal order), noting in the remote tree, in the same
  /// transaction, the item revisions they name (a conflict revision is kept aside by the
  /// server: not the item's) and the items' unresolved conflicts.
  func advance(past entries: [ChangeEntry]) throws {
    guard !entries.isEmpty else { return }
    try write { db in try Self.advance(db, past: entries) }
  }

  /// Records `placeholders` as synced (their status rows cleared) and moves the cursor past
  /// `entries`, in one transaction: a first sync's pages of placeholders, several at once. The
  /// items' identities are random, so each transaction dirties about one B-tree page per
  /// record in each table whatever its size; one transaction for several pages shares those
  /// pages (a hundred thousand placeholders in pages of 1 000 wrote 2.2 GB to the state's log).
  /// Each record is made a ``SyncedItem`` only as its rows are written.
  func record(placeholders: [SyncedRecord], advancingPast entries: [ChangeEntry]) throws {
    guard !placeholders.isEmpty || !entries.isEmpty else { return }
    try write { db in try Self.record(db, placeholders: placeholders, advancingPast: entries) }
  }

  /// ``record(placeholders:advancingPast:)`` queued on the state's writer: it returns at once,
  /// and the write runs before any write asked for after it. A first sync records ten pages
  /// this way while it places the next ones.
  func queueRecord(placeholders: [SyncedRecord], advancingPast entries: [ChangeEntry])
    -> QueuedWrite
  {
    let queued = QueuedWrite()
    guard !placeholders.isEmpty || !entries.isEmpty else {
      queued.finish(.success(()))
      return queued
    }
    let path = path
    database.asyncWrite { db in
      try Self.record(db, placeholders: placeholders, advancingPast: entries)
    } completion: { _, result in
      if case .success = result { try? Sys.touch(path) }
      queued.finish(result)
    }
    return queued
  }

  private static func record(
    _ db: Database, placeholders: [SyncedRecord], advancingPast entries: [ChangeEntry]
  ) throws {
    try record(
      db,
      placeholders.lazy.map { record in
        let item = record.item
        return (item, Array(item.members.keys), [])
      }, clearingStatus: true)
    if !entries.isEmpty { try advance(db, past: entries) }
  }

  private static func advance(_ db: Database, past entries: [ChangeEntry]) throws {
    guard let last = entries.last else { return }
    let remote = try db.cachedStatement(
      sql: """
        INSERT INTO remote(item, path, kind, revision, deleted) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT(item) DO UPDATE SET path = excluded.path, kind = excluded.kind,
          revision = excluded.revision, deleted = excluded.deleted
        WHERE excluded.revision > remote.revision
        """)
    let moving = try db.cachedStatement(
      sql: """
        UPDATE remote SET path = ? || substr(path, length(?) + 1)
        WHERE substr(path, 1, length(?)) = ?
        """)
    for entry in entries where !entry.conflict {
      if let move = entry.folderMove {
        try moving.execute(arguments: [
          move.to + "/", move.from + "/", move.from + "/", move.from + "/",
        ])
        continue
      }
      try remote.execute(arguments: [
        entry.item, entry.path, entry.kind.rawValue, entry.revision, entry.deleted,
      ])
    }
    // Every entry carries the item's unresolved conflicts as the journal was read: the
    // latest is the truth.
    let conflicts = try db.cachedStatement(
      sql: "UPDATE remote SET conflicts = ? WHERE item = ? AND conflicts IS NOT ?")
    for entry in entries where entry.folderMove == nil {
      let list = entry.unresolvedConflicts?.map(String.init).joined(separator: ",")
      try conflicts.execute(arguments: [list, entry.item, list])
    }
    try db.execute(
      sql: "INSERT OR REPLACE INTO meta(key, value) VALUES ('cursor', ?)",
      arguments: [String(last.sequence)])
  }

  /// Each remote item's unresolved conflict revisions, as the journal last reported them.
  func unresolvedConflicts() -> [String: [Int64]] {
    let rows =
      (try? database.read {
        try Row.fetchAll($0, sql: "SELECT item, conflicts FROM remote WHERE conflicts IS NOT NULL")
      }) ?? []
    var result: [String: [Int64]] = [:]
    for row in rows {
      let list: String = row["conflicts"]
      result[row["item"]] = list.split(separator: ",").compactMap { Int64($0) }
    }
    return result
  }

  /// The latest revision of `item` the journal has shown (deleted or not), if any.
  func remoteRevision(of item: String) -> Int64? {
    (try? database.read {
      try Int64.fetchOne($0, sql: "SELECT revision FROM remote WHERE item = ?", arguments: [item])
    }) ?? nil
  }

  /// How many items the remote tree holds that are not deleted.
  var remoteItemCount: Int {
    (try? database.read {
      try Int.fetchOne($0, sql: "SELECT count(*) FROM remote WHERE NOT deleted")
    })
    .flatMap { $0 } ?? 0
  }

  /// Sets an item's state for `quire sync status` (nil: in sync): `uploading`, `waiting`,
  /// `error` (its upload failed), `downloading` or `downloadError`.
  func setStatus(
    _ item: String, path: String, state: SyncItemState?, error: SyncError? = nil
  ) {
    try? write { db in
      if let state {
        try db.execute(
          sql: """
            INSERT OR REPLACE INTO status(item, path, state, error, code) VALUES (?, ?, ?, ?, ?)
            """, arguments: [item, path, state.rawValue, error?.message, error?.code.rawValue])
      } else {
        try db.execute(sql: "DELETE FROM status WHERE item = ?", arguments: [item])
      }
    }
  }

  /// Records how far the download of `item` is (its status row is `downloading`).
  func setProgress(_ item: String, path: String, done: Int, total: Int) {
    try? write { db in
      try db.execute(
        sql: """
          INSERT INTO status(item, path, state, done, total) VALUES (?, ?, 'downloading', ?, ?)
          ON CONFLICT(item) DO UPDATE SET done = excluded.done, total = excluded.total
          """, arguments: [item, path, done, total])
    }
  }

  /// Sets the state of several items at once, in one transaction (`uploading` or `downloading`
  /// for a batch).
  func setStatus(_ items: [(id: String, path: String)], state: SyncItemState) {
    guard !items.isEmpty else { return }
    try? write { db in
      let put = try db.cachedStatement(
        sql: """
          INSERT OR REPLACE INTO status(item, path, state, error, code) VALUES (?, ?, ?, NULL, NULL)
          """)
      for (id, path) in items { try put.execute(arguments: [id, path, state.rawValue]) }
    }
  }

}
