/// The shares' tables: public `links`, `shares` of documents and folders with other accounts,
/// and the chunks participants uploaded through a share (`shareUploads`, so a share's commit
/// names only chunks of the item or its own uploads).
enum ShareTables: AggregateTables {
  static let sqlite = [
    // Public read-only links to items (the token is the link's secret part).
    "v7": """
    CREATE TABLE links(
      token TEXT PRIMARY KEY, container INTEGER NOT NULL, item TEXT NOT NULL,
      created REAL NOT NULL, revoked INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX linksByItem ON links(container, item) WHERE revoked = 0;
    """,
    "v8": """
    CREATE TABLE shares(
      id TEXT PRIMARY KEY, container INTEGER NOT NULL, item TEXT NOT NULL,
      grantee INTEGER NOT NULL, role TEXT NOT NULL, created REAL NOT NULL,
      revoked INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX sharesByItem ON shares(container, item) WHERE revoked = 0;
    CREATE INDEX sharesByGrantee ON shares(grantee) WHERE revoked = 0;
    CREATE TABLE shareUploads(
      share TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(share, hash)) WITHOUT ROWID;
    """,
    // Folder shares: `folder` is the owner's folder path ("Documents/Projects") and `item` is
    // empty; NULL for a document share.
    "v9": "ALTER TABLE shares ADD COLUMN folder TEXT;",
  ]

  static let postgres: [Int64: [String]] = [
    2: [
      """
      CREATE TABLE links(
        token TEXT PRIMARY KEY, container BIGINT NOT NULL, item TEXT NOT NULL,
        created DOUBLE PRECISION NOT NULL, revoked BIGINT NOT NULL DEFAULT 0)
      """,
      "CREATE INDEX linksByItem ON links(container, item) WHERE revoked = 0",
    ],
    3: [
      """
      CREATE TABLE shares(
        id TEXT PRIMARY KEY, container BIGINT NOT NULL, item TEXT NOT NULL,
        grantee BIGINT NOT NULL, role TEXT NOT NULL, created DOUBLE PRECISION NOT NULL,
        revoked BIGINT NOT NULL DEFAULT 0)
      """,
      "CREATE INDEX sharesByItem ON shares(container, item) WHERE revoked = 0",
      "CREATE INDEX sharesByGrantee ON shares(grantee) WHERE revoked = 0",
      "CREATE TABLE shareUploads(share TEXT NOT NULL, hash TEXT NOT NULL, PRIMARY KEY(share, hash))",
    ],
    4: ["ALTER TABLE shares ADD COLUMN folder TEXT"],
  ]

  static let columns: [(name: String, columns: [String])] = [
    ("links", ["token", "container", "item", "created", "revoked"]),
    ("shares", ["id", "container", "item", "grantee", "role", "created", "revoked", "folder"]),
    ("shareUploads", ["share", "hash"]),
  ]
}
