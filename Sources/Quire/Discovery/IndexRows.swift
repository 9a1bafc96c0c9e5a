import Foundation
import GRDB

/// The document index's schema and the SQL that reads and writes its rows.
///
/// `item` holds one row per item, keyed by its absolute path, so the items under a scope are one
/// range of the primary key (`scope/` up to `scope0`: `0` follows `/`). `scope` lists the scopes
/// whose gather completed.
enum IndexRows {
  static func openPool(at url: URL, busyTimeout: TimeInterval) throws -> DatabasePool {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    var configuration = Configuration()
    configuration.label = "quire.index"
    // Another process (or query) may be writing: wait on SQLite's lock for it to finish, as long
    // as one write could reasonably take, rather than fail at once.
    configuration.busyMode = .timeout(busyTimeout)
    configuration.prepareDatabase { db in
      // WAL keeps every commit atomic across crashes; NORMAL is durable enough for an index that
      // can always be rebuilt from the disk.
      try db.execute(sql: "PRAGMA synchronous = NORMAL")
    }
    let pool = try DatabasePool(path: url.path, configuration: configuration)
    // An index made before needs no write to open, so another writer does not hold the open up.
    if try !pool.read(migrator.hasCompletedMigrations) { try migrator.migrate(pool) }
    return pool
  }

  private static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE item (
            path TEXT PRIMARY KEY NOT NULL,
            contentType TEXT NOT NULL,
            isFolder INTEGER NOT NULL,
            size INTEGER NOT NULL,
            created REAL NOT NULL,
            modified REAL NOT NULL,
            tags TEXT NOT NULL,
            identity TEXT
          ) WITHOUT ROWID;
          CREATE INDEX item_identity ON item(identity) WHERE identity IS NOT NULL;
          CREATE TABLE scope (path TEXT PRIMARY KEY NOT NULL) WITHOUT ROWID;
          """)
    }
    migrator.registerMigration("v2") { db in
      // A document in the cloud (its placeholder), so a restarted query shows it as such.
      try db.execute(sql: "ALTER TABLE item ADD COLUMN placeholder INTEGER NOT NULL DEFAULT 0")
    }
    return migrator
  }

  static func items(under scope: String, in db: Database) throws -> [DocumentQuery.Item] {
    let (low, high) = range(under: scope)
    let statement = try db.cachedStatement(
      sql: """
        SELECT path, contentType, isFolder, size, created, modified, tags, identity, placeholder
        FROM item WHERE path > ? AND path < ?
        """)
    let rows = try Row.fetchCursor(statement, arguments: [low, high])
    var items: [DocumentQuery.Item] = []
    while let row = try rows.next() {
      let tags: String = row[6]
      var item = DocumentQuery.Item(
        path: row[0], contentType: row[1], isFolder: row[2], size: row[3],
        creationDate: Date(timeIntervalSinceReferenceDate: row[4]),
        modificationDate: Date(timeIntervalSinceReferenceDate: row[5]),
        tags: tags.isEmpty ? [] : tags.split(separator: ",").map(String.init))
      item.identity = row[7]
      if row[8] as Bool {
        item.isPlaceholder = true
        item.downloadingStatus = .notDownloaded
        item.percentDownloaded = 0
      }
      items.append(item)
    }
    return items
  }

  static func apply(_ change: DocumentIndex.Change, in db: Database) throws {
    if !change.removals.isEmpty {
      let one = try db.cachedStatement(sql: "DELETE FROM item WHERE path = ?")
      let below = try db.cachedStatement(sql: "DELETE FROM item WHERE path > ? AND path < ?")
      for path in change.removals {
        try one.execute(arguments: [path])
        let (low, high) = range(under: path)
        try below.execute(arguments: [low, high])
      }
    }
    if !change.upserts.isEmpty {
      let upsert = try db.cachedStatement(
        sql: """
          INSERT OR REPLACE INTO item
            (path, contentType, isFolder, size, created, modified, tags, identity, placeholder)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
          """)
      for item in change.upserts {
        try upsert.execute(arguments: [
          item.path, item.contentType, item.isFolder, item.size,
          item.creationDate.timeIntervalSinceReferenceDate,
          item.modificationDate.timeIntervalSinceReferenceDate,
          item.tags.joined(separator: ","), item.identity, item.isPlaceholder,
        ])
      }
    }
    if let scope = change.gatheredScope {
      try db.execute(sql: "INSERT OR IGNORE INTO scope (path) VALUES (?)", arguments: [scope])
    }
  }

  /// The bounds (exclusive) of the paths strictly under `path`.
  private static func range(under path: String) -> (String, String) {
    let base = path.hasSuffix("/") ? String(path.dropLast()) : path
    return (base + "/", base + "0")
  }
}
