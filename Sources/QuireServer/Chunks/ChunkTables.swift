/// The chunks' table: which chunks each account stored, their size, and their place in a pack.
enum ChunkTables: AggregateTables {
  static let sqlite = [
    "v1": """
    CREATE TABLE chunks(
      user INTEGER NOT NULL, hash TEXT NOT NULL, size INTEGER NOT NULL,
      PRIMARY KEY(user, hash)) WITHOUT ROWID;
    """,
    // A chunk's place in a pack (NULL: a loose file of its own, as v1 stored them).
    "v2": """
    ALTER TABLE chunks ADD COLUMN pack TEXT;
    ALTER TABLE chunks ADD COLUMN packOffset INTEGER;
    """,
    "v6": "ALTER TABLE chunks RENAME COLUMN user TO account;",
  ]

  static let postgres: [Int64: [String]] = [
    1: [
      """
      CREATE TABLE chunks(
        account BIGINT NOT NULL, hash TEXT NOT NULL, size BIGINT NOT NULL, pack TEXT,
        packOffset BIGINT, PRIMARY KEY(account, hash))
      """
    ]
  ]

  static let columns: [(name: String, columns: [String])] = [
    ("chunks", ["account", "hash", "size", "pack", "packOffset"])
  ]
}
