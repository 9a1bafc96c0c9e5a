import Foundation
import GRDB
import QuireSyncProtocol

/// The server's durable state: accounts, devices, containers, items, revisions, members, chunks
/// and the change journal, in one SQLite database (WAL) beside a folder of chunk bytes.
///
/// Writes are serialized by SQLite, which is what makes the journal's order the commit order.
public final class ServerStore: Sendable {
  let database: DatabasePool
  private let blobAccess: BlobAccess

  /// Where chunk bytes are; opened on first use (see ``BlobAccess``).
  var blobs: any BlobStore {
    get throws(SyncError) { try blobAccess.store() }
  }

  /// Opens (making if needed) the store in `folder`, its chunk bytes in `folder/blobs` or, from
  /// its first start with one, in `objectStorage` (with the keys in `environment`).
  public init(
    folder: URL, objectStorage: ObjectStorage? = nil,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws(SyncError) {
    do {
      try FileManager.default.createDirectory(
        at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
      var configuration = Configuration()
      configuration.busyMode = .timeout(30)
      database = try DatabasePool(
        path: folder.appendingPathComponent("server.sqlite").path, configuration: configuration)
      try ServerSchema.migrator().migrate(database)
      let database = database
      blobAccess = BlobAccess { () throws(SyncError) in
        try Self.openBlobs(
          folder: folder, requested: objectStorage, database: database, environment: environment)
      }
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable,
        "Could not open the server's data in “\(folder.path)”: \(error). Check that the folder is writable and not used by another server.",
        cause: error)
    }
  }

  /// Runs `body` in a write transaction, turning database failures into ``SyncError``.
  func write<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
    do {
      return try database.write(body)
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable, "The server could not write its database: \(error).", cause: error)
    }
  }

  /// Runs `body` on a read snapshot, turning database failures into ``SyncError``.
  func read<T>(_ body: (Database) throws -> T) throws(SyncError) -> T {
    do {
      return try database.read(body)
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable, "The server could not read its database: \(error).", cause: error)
    }
  }
}
