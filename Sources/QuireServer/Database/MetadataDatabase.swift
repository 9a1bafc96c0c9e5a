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

  /// Runs `body`, which reads with one statement: one statement sees one snapshot by itself, so
  /// PostgreSQL needs no transaction around it (a request's token check, on every request).
  func readStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T

  /// Runs `body` in a write transaction: all of it is stored, or nothing.
  func write<T>(_ body: (any SQLSession) throws -> T) throws -> T

  /// Runs `body`, a commit to `scope` (an account's container), in a write transaction: like
  /// ``write(_:)``, except that with PostgreSQL commits to other scopes run beside it. Commits
  /// to one scope run one at a time, whole, so each container's journal order is its commit
  /// order — and every reader of the journal reads one container's. Every other write still
  /// runs alone. `scope` is also announced to the other replicas when
  /// the transaction commits (as ``announce(_:)`` would, without a statement of its own).
  func writeCommit<T>(scope: String, _ body: (any SQLSession) throws -> T) throws -> T

  /// Runs `body`, which writes with one statement that adds nothing to the journal: one
  /// statement is atomic and durable by itself, so PostgreSQL needs no transaction around it
  /// (an upload's chunk rows). The statement may run twice when a connection dies under it, so
  /// it must be idempotent.
  func writeStatement<T>(_ body: (any SQLSession) throws -> T) throws -> T

  /// Runs `body` in a write transaction that adds nothing to the journal (an upload's chunk
  /// rows): it need not wait for the commits' turn, which keeps the journal in commit order.
  func writeOutsideJournal<T>(_ body: (any SQLSession) throws -> T) throws -> T

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
