import Foundation

@testable import QuireServer

extension SyncServerProcess {
  /// The bucket and prefix this server keeps its packs under, if it uses object storage.
  private var objectStorage: (bucket: S3Bucket, prefix: String)? {
    get throws {
      guard let setting = try openStore().database.setting("blobs") else { return nil }
      let storage = try JSONDecoder().decode(ObjectStorage.self, from: Data(setting.utf8))
      let store = try storage.blobStore(environment: environment)
      return (store.bucket, storage.prefix)
    }
  }

  /// The names of the packs the server holds, in its folder or its bucket.
  func packs() throws -> [String] {
    if let (bucket, prefix) = try objectStorage {
      return try bucket.list(prefix: prefix + "packs/").map {
        String($0.key.dropFirst(prefix.count + "packs/".count))
      }
    }
    return
      (try? FileManager.default.contentsOfDirectory(
        atPath: data.url.appendingPathComponent("blobs/packs").path)) ?? []
  }

  /// Stores a pack no row names, as an upload that crashed before its commit leaves.
  func writeOrphanPack(_ name: String, _ bytes: [UInt8]) throws {
    if let (bucket, prefix) = try objectStorage {
      try bucket.put(prefix + "packs/" + name, bytes)
    } else {
      try Data(bytes).write(to: data.url.appendingPathComponent("blobs/packs/" + name))
    }
  }

  /// The server's store, opened in this process (with the object storage's keys).
  func openStore() throws -> ServerStore {
    try ServerStore(
      folder: data.url, postgres: database,
      environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
  }
}
