import QuireSyncProtocol
import Synchronization

/// Opens the server's blob store on first use: `quire server add-user`, `devices` and `revoke`
/// touch only the database, so they need no object storage keys; the server itself and
/// `quire server gc` open it (the server at start, so wrong keys stop it there).
final class BlobAccess: Sendable {
  private let opened = Mutex<(any BlobStore)?>(nil)
  private let open: @Sendable () throws(SyncError) -> any BlobStore

  init(_ open: @escaping @Sendable () throws(SyncError) -> any BlobStore) {
    self.open = open
  }

  /// The store, opened now if this is the first call; a failed open is tried again next time.
  func store() throws(SyncError) -> any BlobStore {
    try opened.withLock { opened throws(SyncError) in
      if let opened { return opened }
      let store = try open()
      opened = store
      return store
    }
  }
}
