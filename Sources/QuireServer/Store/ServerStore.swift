import Foundation
import QuireSyncProtocol

/// The server's durable state, cut by aggregate: ``accounts``, ``chunks``, ``commits`` and
/// ``shares``, each with its own tables, over one metadata database (SQLite (WAL) in the data
/// folder, or PostgreSQL shared by several replicas) beside the chunk bytes in a folder or
/// object storage.
///
/// Writes are serialized by the database, which is what makes the journal's order the commit
/// order.
public final class ServerStore: Sendable {
  let backend: StoreBackend
  /// Users, devices and their tokens.
  public let accounts: AccountStore
  /// The chunks each account has stored.
  public let chunks: ChunkStore
  /// Containers, items, revisions, members, versions and the journal.
  public let commits: CommitStore
  /// Shares, folder shares and public links.
  public let shares: ShareStore
  /// The drive as WebDAV sees it: folders, items and package members by path.
  let dav: DAVStore

  /// Opens (making if needed) the store in `folder`: its metadata in `folder/server.sqlite`, or
  /// in the PostgreSQL database at `postgres`; its chunk bytes in `folder/blobs` or, from its
  /// first start with one, in `objectStorage` (with the keys in `environment`).
  public init(
    folder: URL, postgres: URL? = nil, objectStorage: ObjectStorage? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SyncError) {
    backend = try StoreBackend(
      folder: folder, postgres: postgres, objectStorage: objectStorage, environment: environment)
    accounts = AccountStore(backend: backend)
    chunks = ChunkStore(backend: backend)
    commits = CommitStore(backend: backend, chunks: chunks)
    shares = ShareStore(backend: backend, commits: commits, chunks: chunks)
    dav = DAVStore(backend: backend, commits: commits, chunks: chunks)
  }

  /// The metadata database (for ``migrate(to:)`` and the server's health check).
  var database: any MetadataDatabase { backend.database }
}
