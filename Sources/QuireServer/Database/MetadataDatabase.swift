/// Where a server keeps its metadata (accounts, items, revisions, members, chunks, the
/// journal): SQLite in its data folder (``SQLiteMetadata``) or PostgreSQL shared by several
/// replicas (``PostgresMetadata``).
///
/// Every write transaction is serialized across all replicas, which is what makes the journal's
/// order the commit order. Reads see one consistent snapshot.
protocol MetadataDatabase: Sendable {
  /// A short name for errors and logs ("SQLite", "PostgreSQL").
  var engine: String { get }

  /// Runs `body` on a consistent read-only snapshot.
  func read<T>(_ body: (any SQLSession) throws -> T) throws -> T

  /// Runs `body` in a write transaction: all of it is stored, or nothing.
  func write<T>(_ body: (any SQLSession) throws -> T) throws -> T

  /// The setting `key` (such as where the server's blobs are), shared by every replica.
  func setting(_ key: String) throws -> String?

  /// Stores the setting `key`.
  func setSetting(_ key: String, _ value: String) throws

  /// Tells the other replicas that the journal of `key` grew (nothing with one process).
  func announce(_ key: String)

  /// Until the task is cancelled, calls `wake` with each key another replica announces, and
  /// with nil when announcements may have been missed (the listening connection was lost): then
  /// every stream should read its journal again.
  func listen(_ wake: @escaping @Sendable (String?) -> Void) async
}
