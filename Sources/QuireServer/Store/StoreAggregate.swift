import Foundation
import QuireSyncProtocol

/// One aggregate of the server's state (accounts, chunks, commits, shares): the tables it owns
/// and what reads and writes them, over the shared ``StoreBackend``. The transactions below are
/// the backend's, so an aggregate's code reads as a transaction of its own.
protocol StoreAggregate: Sendable {
  /// The database and chunk bytes it works on.
  var backend: StoreBackend { get }
}

extension StoreAggregate {
  /// Where chunk bytes are (see ``StoreBackend/blobs``).
  var blobs: any BlobStore {
    get throws(SyncError) { try backend.blobs }
  }

  /// See ``StoreBackend/write(_:)``.
  func write<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.write(body)
  }

  /// See ``StoreBackend/writeCommit(scope:_:)``.
  func writeCommit<T>(scope: String, _ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.writeCommit(scope: scope, body)
  }

  /// See ``StoreBackend/writeStatement(_:)``.
  func writeStatement<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.writeStatement(body)
  }

  /// See ``StoreBackend/writeOutsideJournal(_:)``.
  func writeOutsideJournal<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.writeOutsideJournal(body)
  }

  /// See ``StoreBackend/read(_:)``.
  func read<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.read(body)
  }

  /// See ``StoreBackend/readStatement(_:)``.
  func readStatement<T>(_ body: (any SQLSession) throws -> T) throws(SyncError) -> T {
    try backend.readStatement(body)
  }
}
