import Foundation
import QuireSyncProtocol

/// What every aggregate of the server's state works on: the metadata database (SQLite in the
/// data folder, or PostgreSQL shared by several replicas) and the chunk bytes (a folder or
/// object storage), with the transactions that turn database failures into ``SyncError``.
///
/// Writes are serialized by the database, which is what makes the journal's order the commit
/// order.
final class StoreBackend: Sendable {
  let database: any MetadataDatabase
  private let blobAccess: BlobAccess

  /// Where chunk bytes are; opened on first use (see ``BlobAccess``).
  var blobs: any BlobStore {
    get throws(SyncError) { try blobAccess.store() }
  }

  /// Opens (making if needed) the store in `folder`: its metadata in `folder/server.sqlite`, or
  /// in the PostgreSQL database at `postgres`; its chunk bytes in `folder/blobs` or, from its
  /// first start with one, in `objectStorage` (with the keys in `environment`).
  init(
    folder: URL, postgres: URL?, objectStorage: ObjectStorage?, environment: [String: String]
  ) throws(SyncError) {
    do {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      if let postgres {
        database = try PostgresMetadata(url: postgres)
      } else {
        database = try SQLiteMetadata(folder: folder)
      }
      let database = database
      blobAccess = BlobAccess { () throws(SyncError) in
        try Self.openBlobs(
          folder: folder, requested: objectStorage, database: database, environment: environment)
      }
    } catch let error as SyncError {
      throw error
    } catch {
      let place =
        postgres.map { "the database \(PostgresMetadata.redacted($0))" } ?? "“\(folder.path)”"
      throw SyncError(
        .unavailable,
        "Could not open the server's data in \(place): \(String(reflecting: error)). Check that it is reachable and writable.",
        cause: error)
    }
  }

  /// Runs `body` in a write transaction, turning database failures into ``SyncError``.
  func write<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try writing { try database.write(body) }
  }

  /// Runs `body`, a commit to `scope`, in a write transaction (see
  /// ``MetadataDatabase/writeCommit(scope:_:)``), turning database failures into ``SyncError``.
  func writeCommit<T>(scope: String, _ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try writing { try database.writeCommit(scope: scope, body) }
  }

  /// Runs `body`, one idempotent statement that adds nothing to the journal (see
  /// ``MetadataDatabase/writeStatement(_:)``), turning database failures into ``SyncError``.
  func writeStatement<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try writing { try database.writeStatement(body) }
  }

  /// Runs `body` in a write transaction that adds nothing to the journal (see
  /// ``MetadataDatabase/writeOutsideJournal(_:)``), turning database failures into
  /// ``SyncError``.
  func writeOutsideJournal<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try writing { try database.writeOutsideJournal(body) }
  }

  private func writing<T>(_ run: () throws -> T) throws(SyncError) -> T {
    do {
      return try run()
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable,
        "The server could not write its \(database.engine) database: \(String(reflecting: error)). Try again.",
        cause: error)
    }
  }

  /// Runs `body` on a read snapshot, turning database failures into ``SyncError``.
  func read<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try reading { try database.read(body) }
  }

  /// Runs `body`, which reads with one statement (see ``MetadataDatabase/readStatement(_:)``),
  /// turning database failures into ``SyncError``.
  func readStatement<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try reading { try database.readStatement(body) }
  }

  private func reading<T>(_ run: () throws -> T) throws(SyncError) -> T {
    do {
      return try run()
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable,
        "The server could not read its \(database.engine) database: \(String(reflecting: error)). Try again.",
        cause: error)
    }
  }
}
