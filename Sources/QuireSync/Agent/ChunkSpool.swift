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
/// the folder's watch nothing, and it vanishes with the descriptor, even if the agent is killed.
/// Each chunk was checked against its hash as it arrived, so it is not hashed again.
///
/// A spool with a ``layout`` (a whole flat file, every chunk fetched) puts each chunk where the
/// file has it, so once full it *is* the file: ``wholeFile`` hands it to the writer, which names
/// it instead of copying every byte again. Its pages are sent to disk as they come, so the
/// writer's `fsync` has little left to wait for. Any other spool is scratch, never flushed: a
/// crash loses it, and the download starts again.
final class ChunkSpool {
  /// Downloads of more bytes than this go to disk.
  static let memoryLimit = 32 << 20

  private var memory: [ContentHash: [UInt8]] = [:]
  /// The spool file, if the download goes to disk.
  private var fd: Int32?
  /// Where each chunk is in the file: appended as it comes, or where the layout puts it (each
  /// place it has in the file).
  private var places: [ContentHash: (offsets: [Int64], size: Int)] = [:]
  private var end: Int64 = 0
  /// Whether the file is laid out as the flat file being downloaded.
  private let laidOut: Bool
  /// The chunks of the layout not put yet.
  private var missing: Set<ContentHash> = []

  /// A spool for `bytes` of chunks, made on `syncedFolder`'s file system if they are more than
  /// ``memoryLimit``. With `layout`, the chunks in order of a flat file, all of which are to be
  /// fetched, a spool on disk holds them as that file does.
  init(bytes: Int, in syncedFolder: URL, layout: [ChunkReference]? = nil) throws {
    guard bytes > Self.memoryLimit else {
      laidOut = false
      return
    }
    fd = try Sys.openUnnamed(in: syncedFolder.path, name: ".quire-sync-spool-")
    guard let layout else {
      laidOut = false
      return
    }
    laidOut = true
    var offset: Int64 = 0
    for chunk in layout {
      places[chunk.hash, default: ([], chunk.size)].offsets.append(offset)
      missing.insert(chunk.hash)
      offset += Int64(chunk.size)
    }
    end = offset
  }

  deinit { discard() }

  /// Keeps `bytes`, the chunk `hash` (already checked against it).
  func put(_ hash: ContentHash, _ bytes: [UInt8]) throws {
    guard let fd else {
      memory[hash] = bytes
      return
    }
    if laidOut {
      guard let place = places[hash], missing.remove(hash) != nil else { return }
      guard place.size == bytes.count else {
        throw SyncError(
          .badChunk,
          "The chunk \(hash) has \(bytes.count) bytes where the manifest says \(place.size); the download is retried."
        )
      }
      for offset in place.offsets { try Sys.write(fd, bytes, at: offset) }
      return
    }
    guard places[hash] == nil else { return }
    try Sys.write(fd, bytes, at: end)
    places[hash] = ([end], bytes.count)
    end += Int64(bytes.count)
  }

  /// Called after each request's chunks are put: a laid-out spool starts sending them to disk.
  func written() {
    if laidOut, let fd { Sys.startWriteback(fd) }
  }

  /// The bytes of chunk `hash`, if it was kept.
  func bytes(of hash: ContentHash) throws -> [UInt8]? {
    guard let fd else { return memory[hash] }
    guard let place = places[hash], let offset = place.offsets.first,
      !missing.contains(hash)
    else { return nil }
    let bytes = try Sys.read(fd, at: offset, count: place.size)
    guard bytes.count == place.size else {
      throw SyncError(
        .changedWhileSyncing,
        "The downloaded chunk \(hash) was cut short in its spool; the download starts again.")
    }
    return bytes
  }

  /// Whether the spool already holds chunk `hash` (a download tried again fetches only the
  /// rest).
  func holds(_ hash: ContentHash) -> Bool {
    guard fd != nil else { return memory[hash] != nil }
    return places[hash] != nil && !missing.contains(hash)
  }

  /// Whether the chunks are in a file (and may be kept for a later try), not in memory.
  var isOnDisk: Bool { fd != nil }

  /// Whether the spool is laid out as a flat file (see ``init(bytes:in:layout:)``).
  var isLaidOut: Bool { laidOut }

  /// The open spool file, if it holds the whole laid-out file (every chunk put): the writer
  /// may give it a name rather than copy it. The spool still closes it.
  var wholeFile: Int32? {
    guard laidOut, missing.isEmpty else { return nil }
    return fd
  }

  /// Lets the spool's file and memory go.
  func discard() {
    if let fd { Sys.close(fd) }
    fd = nil
    places = [:]
    memory = [:]
  }
}
