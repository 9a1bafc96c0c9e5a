import Foundation
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Where a download keeps the chunks it fetched until they are written into the item: in memory
/// for a small download, and for a large one in one unnamed file on the synced folder's file
/// system. So a download of any size holds at most one request's chunks in memory.
///
/// The file is made with `O_TMPFILE` (or, where the file system has none, named and removed at
/// once): it has no name, so no other process can find it, change it or see it appear, it tells
/// the folder's watch nothing, it is never flushed to disk (it is scratch: a crash loses it, and
/// the download starts over), and it vanishes with the descriptor, even if the agent is killed.
/// Each chunk was checked against its hash as it arrived, so it is not hashed again.
final class ChunkSpool {
  /// Downloads of more bytes than this go to disk.
  static let memoryLimit = 32 << 20

  private var memory: [ContentHash: [UInt8]] = [:]
  /// The spool file, if the download goes to disk.
  private var fd: Int32?
  /// Where each chunk is in the file.
  private var places: [ContentHash: (offset: Int64, size: Int)] = [:]
  private var end: Int64 = 0

  /// A spool for `bytes` of chunks, made on `syncedFolder`'s file system if they are more than
  /// ``memoryLimit``.
  init(bytes: Int, in syncedFolder: URL) throws {
    guard bytes > Self.memoryLimit else { return }
    fd = try Sys.openUnnamed(in: syncedFolder.path, name: ".quire-sync-spool-")
  }

  deinit { discard() }

  /// Keeps `bytes`, the chunk `hash` (already checked against it).
  func put(_ hash: ContentHash, _ bytes: [UInt8]) throws {
    guard let fd else {
      memory[hash] = bytes
      return
    }
    guard places[hash] == nil else { return }
    try Sys.write(fd, bytes)
    places[hash] = (end, bytes.count)
    end += Int64(bytes.count)
  }

  /// The bytes of chunk `hash`, if it was kept.
  func bytes(of hash: ContentHash) throws -> [UInt8]? {
    guard let fd else { return memory[hash] }
    guard let place = places[hash] else { return nil }
    let bytes = try Sys.read(fd, at: place.offset, count: place.size)
    guard bytes.count == place.size else {
      throw SyncError(
        .changedWhileSyncing,
        "The downloaded chunk \(hash) was cut short in its spool; the download starts again.")
    }
    return bytes
  }

  /// Lets the spool's file and memory go.
  func discard() {
    if let fd { Sys.close(fd) }
    fd = nil
    places = [:]
    memory = [:]
  }
}
