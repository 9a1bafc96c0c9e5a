import Foundation
import Quire
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The chunks this device already holds in its synced copy of an item, so a download of a new
/// revision fetches only the chunks it lacks: 100 bytes changed in a 256 MiB member fetch one or
/// two chunks and copy the rest from the file on disk.
///
/// Each chunk read back is checked against its hash; one that no longer matches (the file was
/// changed in place since it was synced) fails the download with `changedWhileSyncing`, and
/// the agent syncs the item again.
final class LocalChunks {
  private struct Place {
    var member: String
    var offset: Int64
    var size: Int
  }

  private var places: [ContentHash: Place] = [:]
  private var files: [String: Int32] = [:]
  private let locate: () -> URL?

  /// The chunks of `base`'s members; `locate` finds the item on disk when they are first read
  /// (after a move, it is no longer at `base`'s path).
  init(base: SyncedItem, locate: @escaping () -> URL?) {
    self.locate = locate
    for (path, member) in base.members where member.local != .inCloud {
      var offset: Int64 = 0
      for chunk in member.chunks {
        if places[chunk.hash] == nil {
          places[chunk.hash] = Place(member: path, offset: offset, size: chunk.size)
        }
        offset += Int64(chunk.size)
      }
    }
  }

  /// No chunks: everything is fetched.
  init() { locate = { nil } }

  deinit { for fd in files.values { Sys.close(fd) } }

  /// Whether the chunk `hash` is on disk.
  func contains(_ hash: ContentHash) -> Bool { places[hash] != nil }

  /// The bytes of chunk `hash`, read from disk and checked; nil if this device does not hold it.
  func bytes(of hash: ContentHash) throws(SyncError) -> [UInt8]? {
    guard let place = places[hash] else { return nil }
    guard let root = locate() else { throw MemberSnapshot.changedWhileRead(hash.hex) }
    let file = place.member.isEmpty ? root.path : root.appendingPathComponent(place.member).path
    let fd: Int32
    if let open = files[file] {
      fd = open
    } else {
      guard let opened = try? Sys.open(file, O_RDONLY) else {
        throw MemberSnapshot.changedWhileRead(file)
      }
      fd = opened
      files[file] = fd
    }
    let bytes = try MemberSnapshot.read(fd, at: place.offset, count: place.size, file: file)
    guard ContentHash(of: bytes) == hash else { throw MemberSnapshot.changedWhileRead(file) }
    return bytes
  }
}
