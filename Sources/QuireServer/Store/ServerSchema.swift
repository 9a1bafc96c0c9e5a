import GRDB

/// The server's tables in SQLite (``PostgresSchema`` makes the same in PostgreSQL). A revision's members live as rows valid over a range of the item's
/// revisions (`since` ≤ r < `until`), so a commit writes only the members it changes and a
/// device downloads only the members changed after its revision: both cost O(changed).
enum ServerSchema {
  static func migrator() -> DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration("v1") { db in
      try db.execute(
        sql: """
          CREATE TABLE users(
            id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, passwordHash TEXT NOT NULL,
            created REAL NOT NULL);
          CREATE TABLE devices(
            id TEXT PRIMARY KEY, user INTEGER NOT NULL REFERENCES users(id), name TEXT NOT NULL,
            tokenHash TEXT NOT NULL UNIQUE, created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
          CREATE TABLE containers(
            id INTEGER PRIMARY KEY, user INTEGER NOT NULL REFERENCES users(id),
            identifier TEXT NOT NULL, UNIQUE(user, identifier));
          CREATE TABLE items(
            container INTEGER NOT NULL, item TEXT NOT NULL, kind TEXT NOT NULL, path TEXT NOT NULL,
            current INTEGER NOT NULL, deleted INTEGER NOT NULL, PRIMARY KEY(container, item))
            WITHOUT ROWID;
          CREATE TABLE revisions(
            id INTEGER PRIMARY KEY AUTOINCREMENT, container INTEGER NOT NULL, item TEXT NOT NULL,
            base INTEGER, kind TEXT NOT NULL, path TEXT NOT NULL, deleted INTEGER NOT NULL,
            conflict INTEGER NOT NULL, device TEXT NOT NULL, committed REAL NOT NULL,
            commitID TEXT NOT NULL, change BLOB, UNIQUE(container, commitID));
          CREATE TABLE members(
            container INTEGER NOT NULL, item TEXT NOT NULL, path TEXT NOT NULL,
            since INTEGER NOT NULL, until INTEGER, size INTEGER NOT NULL, mode INTEGER NOT NULL,
            modified REAL NOT NULL, hash TEXT NOT NULL, chunks BLOB NOT NULL);
          CREATE INDEX membersLive ON members(container, item, path) WHERE until IS NULL;
          CREATE INDEX membersSince ON members(container, item, since);
          CREATE INDEX membersUntil ON members(container, item, until);
          CREATE TABLE chunks(
            user INTEGER NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
            PRIMARY KEY(user, hash)) WITHOUT ROWID;
          CREATE TABLE journal(
            sequence INTEGER PRIMARY KEY AUTOINCREMENT, container INTEGER NOT NULL,
            revision INTEGER NOT NULL);
          CREATE INDEX journalByContainer ON journal(container, sequence);
          """)
    }
    // v2: a chunk's place in a pack (NULL: a loose file of its own, as v1 stored them).
    migrator.registerMigration("v2") { db in
      try db.execute(
        sql: """
          ALTER TABLE chunks ADD COLUMN pack TEXT;
          ALTER TABLE chunks ADD COLUMN packOffset INTEGER;
          """)
    }
    // v3: merged revisions (a stale commit merged with the current one), conflict revisions a
    // user resolved, and the look-up of an item's unresolved conflicts.
    migrator.registerMigration("v3") { db in
      try db.execute(
        sql: """
          ALTER TABLE revisions ADD COLUMN merged INTEGER NOT NULL DEFAULT 0;
          ALTER TABLE revisions ADD COLUMN resolved INTEGER NOT NULL DEFAULT 0;
          CREATE INDEX revisionsUnresolved ON revisions(container, item)
            WHERE conflict = 1 AND resolved = 0;
          """)
    }
    // v4: versions a user removed (no longer listed).
    migrator.registerMigration("v4") { db in
      try db.execute(sql: "ALTER TABLE revisions ADD COLUMN removed INTEGER NOT NULL DEFAULT 0")
    }
    // v5: the look-up of the live item at a path (two items never share one).
    migrator.registerMigration("v5") { db in
      try db.execute(
        sql: "CREATE INDEX itemsLiveByPath ON items(container, path) WHERE deleted = 0")
    }
    // v6: "user" is a reserved word in PostgreSQL; the same tables serve both engines.
    migrator.registerMigration("v6") { db in
      try db.execute(
        sql: """
          ALTER TABLE devices RENAME COLUMN user TO account;
          ALTER TABLE containers RENAME COLUMN user TO account;
          ALTER TABLE chunks RENAME COLUMN user TO account;
          """)
    }
    // v7: public read-only links to items (the token is the link's secret part).
    migrator.registerMigration("v7") { db in
      try db.execute(
        sql: """
          CREATE TABLE links(
            token TEXT PRIMARY KEY, container INTEGER NOT NULL, item TEXT NOT NULL,
            created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
          CREATE INDEX linksByItem ON links(container, item) WHERE revoked = 0;
          """)
    }
    // v8: items shared with other accounts, and the chunks a participant uploaded through a
    // share (so a share's commit names only chunks of the item or its own uploads).
    migrator.registerMigration("v8") { db in
      try db.execute(
        sql: """
          CREATE TABLE shares(
            id TEXT PRIMARY KEY, container INTEGER NOT NULL, item TEXT NOT NULL,
            grantee INTEGER NOT NULL, role TEXT NOT NULL, created REAL NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0);
          CREATE INDEX sharesByItem ON shares(container, item) WHERE revoked = 0;
          CREATE INDEX sharesByGrantee ON shares(grantee) WHERE revoked = 0;
          CREATE TABLE shareUploads(
            share TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(share, hash)) WITHOUT ROWID;
          """)
    }
    // v9: folder shares: `folder` is the owner's folder path ("Documents/Projects") and `item`
    // is empty; NULL for a document share.
    migrator.registerMigration("v9") { db in
      try db.execute(sql: "ALTER TABLE shares ADD COLUMN folder TEXT")
    }
    // v10: the live-item look-up by path covers `deleted`, so SQLite uses it for the name-clash
    // check of every commit; without it SQLite searched the container's whole primary key, and a
    // first sync of 10 000 files spent over half the server's time there.
    migrator.registerMigration("v10") { db in
      try db.execute(
        sql: """
          DROP INDEX itemsLiveByPath;
          CREATE INDEX itemsLiveByPath ON items(container, path, deleted) WHERE deleted = 0;
          """)
    }
    return migrator
  }
}
