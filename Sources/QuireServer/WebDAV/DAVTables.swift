/// WebDAV's own tables: the folders a WebDAV client made that hold nothing yet (`davFolders`;
/// a folder that holds an item exists because of it, as on a device), and the dead properties
/// clients set with PROPPATCH (`davProperties`), kept per path and carried by COPY and MOVE,
/// and the write locks of class 2 (`davLocks`), with the account that took each (0: the
/// container's owner, for a lock taken before that was recorded).
enum DAVTables: AggregateTables {
  static let sqlite = [
    "v11": """
    CREATE TABLE davFolders(
      container INTEGER NOT NULL, path TEXT NOT NULL, created REAL NOT NULL,
      PRIMARY KEY(container, path)) WITHOUT ROWID;
    CREATE TABLE davProperties(
      container INTEGER NOT NULL, path TEXT NOT NULL, namespace TEXT NOT NULL,
      name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(container, path, namespace, name))
      WITHOUT ROWID;
    CREATE TABLE davLocks(
      token TEXT PRIMARY KEY, container INTEGER NOT NULL, path TEXT NOT NULL,
      deep INTEGER NOT NULL, exclusive INTEGER NOT NULL, owner TEXT NOT NULL,
      timeout INTEGER NOT NULL, expires REAL NOT NULL);
    CREATE INDEX davLocksByPath ON davLocks(container, path);
    """,
    // Who took each lock: in a share, another account than the container's owner can.
    "v12": "ALTER TABLE davLocks ADD COLUMN account INTEGER NOT NULL DEFAULT 0;",
  ]

  static let postgres: [Int64: [String]] = [
    6: [
      """
      CREATE TABLE davFolders(
        container BIGINT NOT NULL, path TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
        PRIMARY KEY(container, path))
      """,
      """
      CREATE TABLE davProperties(
        container BIGINT NOT NULL, path TEXT NOT NULL, namespace TEXT NOT NULL,
        name TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY(container, path, namespace, name))
      """,
      """
      CREATE TABLE davLocks(
        token TEXT PRIMARY KEY, container BIGINT NOT NULL, path TEXT NOT NULL,
        deep BIGINT NOT NULL, exclusive BIGINT NOT NULL, owner TEXT NOT NULL,
        timeout BIGINT NOT NULL, expires DOUBLE PRECISION NOT NULL)
      """,
      "CREATE INDEX davLocksByPath ON davLocks(container, path)",
    ],
    7: ["ALTER TABLE davLocks ADD COLUMN account BIGINT NOT NULL DEFAULT 0"],
  ]

  static let columns: [(name: String, columns: [String])] = [
    ("davFolders", ["container", "path", "created"]),
    ("davProperties", ["container", "path", "namespace", "name", "value"]),
    (
      "davLocks",
      [
        "token", "container", "path", "deep", "exclusive", "owner", "timeout", "expires",
        "account",
      ]
    ),
  ]
}
