import Foundation
import QuireSyncProtocol

extension StoreBackend {
  /// The blob store of the server in `folder`: the object storage it was first started with
  /// (remembered as the `blobs` setting: `blobs.json` beside SQLite, a row in PostgreSQL, so
  /// every replica agrees), `requested` on a first start, or the folder `blobs/`.
  ///
  /// A server whose chunks are in its folder is not switched to object storage (that would
  /// lose them), nor one in a bucket to another bucket: both are refused with what to do.
  static func openBlobs(
    folder: URL, requested: ObjectStorage?, database: any MetadataDatabase,
    environment: [String: String]
  ) throws(SyncError) -> any BlobStore {
    let remembered: ObjectStorage?
    do {
      remembered = try database.setting("blobs").flatMap {
        try? JSONDecoder().decode(ObjectStorage.self, from: Data($0.utf8))
      }
    } catch {
      throw SyncError(
        .unavailable, "The server could not read its \(database.engine) database: \(error).",
        cause: error)
    }
    if let requested, let remembered, requested != remembered {
      throw SyncError(
        .alreadyExists,
        "The server in “\(folder.path)” keeps its blobs in \(remembered.address) at \(remembered.endpoint.absoluteString), not \(requested.address) at \(requested.endpoint.absoluteString); start it without --blobs (or with the same address)."
      )
    }
    guard let storage = requested ?? remembered else {
      let blobs = folder.appendingPathComponent("blobs")
      do {
        return try FolderBlobStore(folder: blobs)
      } catch {
        throw SyncError(
          .unavailable, "The server could not make its blob folder “\(blobs.path)”: \(error).",
          cause: error)
      }
    }
    let store = try storage.blobStore(environment: environment)
    try store.bucket.create()
    if remembered == nil {
      let count: Int
      do {
        count = try database.read { try $0.value(Int.self, "SELECT COUNT(*) FROM chunks") ?? 0 }
      } catch {
        throw SyncError(
          .unavailable, "The server could not read its database: \(error).", cause: error)
      }
      guard count == 0 else {
        throw SyncError(
          .alreadyExists,
          "The server in “\(folder.path)” holds \(count) chunks in its folder; it cannot keep its blobs in \(storage.address) without moving them, which Quire does not do. Start it without --blobs, or with a new --data folder."
        )
      }
      do {
        try database.setSetting(
          "blobs", String(decoding: try JSONEncoder().encode(storage), as: UTF8.self))
      } catch {
        throw SyncError(
          .unavailable, "The server could not remember its blob storage: \(error).", cause: error)
      }
    }
    return store
  }
}
