import Foundation
import QuireSyncProtocol

/// Where a download keeps the chunks it fetched until they are written into the item: in memory
/// for a small download, in a hidden folder of the synced folder (`.quire-sync-spool-…`, on the
/// same file system, removed after) for a large one. So a download of any size holds at most one
/// request's chunks in memory.
final class ChunkSpool {
  /// Downloads of more bytes than this go to disk.
  static let memoryLimit = 32 << 20

  private var memory: [ContentHash: [UInt8]] = [:]
  private let folder: URL?

  /// A spool for `bytes` of chunks, made in `syncedFolder` if they are more than
  /// ``memoryLimit``.
  init(bytes: Int, in syncedFolder: URL) throws {
    guard bytes > Self.memoryLimit else {
      folder = nil
      return
    }
    let made = syncedFolder.appendingPathComponent(".quire-sync-spool-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: made, withIntermediateDirectories: false)
    folder = made
  }

  /// Keeps `bytes`, the chunk `hash` (already checked against it).
  func put(_ hash: ContentHash, _ bytes: [UInt8]) throws {
    guard let folder else {
      memory[hash] = bytes
      return
    }
    try Data(bytes).write(to: folder.appendingPathComponent(hash.hex))
  }

  /// The bytes of chunk `hash`, if it was kept.
  func bytes(of hash: ContentHash) throws -> [UInt8]? {
    guard let folder else { return memory[hash] }
    let file = folder.appendingPathComponent(hash.hex)
    guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
    let bytes = [UInt8](data)
    guard ContentHash(of: bytes) == hash else {
      throw SyncError(
        .changedWhileSyncing, "The downloaded chunk \(hash) in “\(file.path)” was changed.")
    }
    return bytes
  }

  /// Removes the spool's folder.
  func discard() {
    if let folder { try? FileManager.default.removeItem(at: folder) }
    memory = [:]
  }
}
