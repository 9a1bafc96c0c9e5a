import Foundation
import Quire
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// A member as the agent read it for upload: its chunks and hash, and the file still open, so
/// the chunks the server lacks are read back from the very file that was hashed — one pass over
/// the bytes to cut and hash them, a second only over what is sent, and memory of a few chunks
/// whatever the member's size.
///
/// A program that replaces the member by renaming (every Quire save, every safe-save) leaves
/// the open file as it was; one that writes into it in place is caught when a chunk read back no
/// longer hashes to what was listed (``changedWhileRead(_:)``), and the item is read again.
final class MemberSnapshot: Sendable {
  let path: String
  let hash: ContentHash
  let size: Int
  let chunks: [ChunkReference]
  /// The stat of the bytes read, from the open file: what the synced record keeps. Not the
  /// scan's, which may have been taken before a writer's bytes were in (a file created empty,
  /// then written): a record with that stat and these bytes' hash never proved the file, and
  /// the same bytes were committed again as a new version.
  let local: LocalItem.Member
  private let offsets: [Int64]
  private let fd: Int32
  /// The member's file, as errors name it.
  let file: String

  /// Opens and chunks the member at `file` (`path` within its item).
  init(path: String, file: String) throws {
    let fd: Int32
    do {
      fd = try Sys.open(file, O_RDONLY)
    } catch {
      throw SyncError(
        .unavailable, "“\(file)” could not be opened to upload it: \(error.description).",
        cause: error)
    }
    // A program that has it open for writing may be between its truncation and its write: the
    // bytes now are not a version anyone saved. Its close is an event, which asks for another
    // push; the kernel, not a quiet moment, says when it is done.
    if Sys.hasWriters(fd) == true {
      Sys.close(fd)
      throw SyncError(
        .changedWhileSyncing,
        "“\(file)” is open for writing in another program; it is uploaded once that program closes it."
      )
    }
    let read: ChunkedRead
    let local: LocalItem.Member
    do {
      let before = LocalScanner.member(try Sys.status(of: fd))
      do {
        read = try ChunkedRead(fd: fd, file: file, expectedSize: Int(before.size))
      } catch {
        throw SyncError(
          .unavailable, "“\(file)” could not be read to sync it: \(error.description).",
          cause: error)
      }
      // Written into while it was read (a writer that opened it after the check): the bytes
      // may be of no one version.
      local = LocalScanner.member(try Sys.status(of: fd))
      guard local == before, local.size == read.size else { throw Self.changedWhileRead(file) }
    } catch {
      Sys.close(fd)
      throw error
    }
    self.local = local
    self.path = path
    self.file = file
    self.fd = fd
    self.hash = read.hash
    self.size = read.size
    self.chunks = read.chunks
    self.offsets = read.offsets
  }

  deinit { Sys.close(fd) }

  /// The manifest entry for this member, with what the server stores: permission bits only
  /// (a local set-uid bit is not sent) and a time within ``ManifestMember/modificationTimes``.
  func member(mode: Int, modified: Double) -> ManifestMember {
    var member = ManifestMember(
      path: path, size: size, mode: mode & 0o777, modified: modified, hash: hash, chunks: chunks)
    member.modified = member.safeModified
    return member
  }

  /// Where each chunk's bytes are, by hash.
  var locations: [ContentHash: Int] {
    var result: [ContentHash: Int] = [:]
    for (index, chunk) in chunks.enumerated() where result[chunk.hash] == nil {
      result[chunk.hash] = index
    }
    return result
  }

  /// The bytes of chunk `index`, read back and checked against its hash.
  func bytes(ofChunk index: Int) throws(SyncError) -> [UInt8] {
    let bytes = try uncheckedBytes(ofChunk: index)
    guard ContentHash(of: bytes) == chunks[index].hash else { throw Self.changedWhileRead(file) }
    return bytes
  }

  /// The bytes of chunk `index`, read back and not hashed again: for an upload, which the
  /// server checks against the chunk's hash before it stores anything. Bytes written in place
  /// since the first read are refused there (``SyncAgent`` then reads the item again), so the
  /// second hash here would only repeat the server's, a third pass over every byte sent.
  func uncheckedBytes(ofChunk index: Int) throws(SyncError) -> [UInt8] {
    try Self.read(fd, at: offsets[index], count: chunks[index].size, file: file)
  }

  /// What an upload of `sources` that failed with `error` means here. The server refuses a
  /// body with a chunk that does not hash to its name (`badChunk`): if a member's chunk no
  /// longer does here either, that member was written in place after it was read, and it is
  /// synced again (`changedWhileSyncing`, naming it). Any other refusal is the server's, as it
  /// said. The chunks are hashed again only on that failure.
  static func changedWhileSent(
    _ error: SyncError, sources: some Collection<(snapshot: MemberSnapshot, index: Int)>
  ) -> SyncError {
    guard error.code == .badChunk else { return error }
    for source in sources {
      do {
        _ = try source.snapshot.bytes(ofChunk: source.index)
      } catch {
        guard error.code == .changedWhileSyncing else { continue }
        return SyncError(
          .changedWhileSyncing,
          "“\(source.snapshot.file)” changed while it was being sent; it is synced again.",
          cause: error)
      }
    }
    return error
  }

  /// Reads `count` bytes at `offset` of the open file `fd` (`file` names it in errors).
  static func read(_ fd: Int32, at offset: Int64, count: Int, file: String) throws(SyncError)
    -> [UInt8]
  {
    let bytes: [UInt8]
    do {
      bytes = try Sys.read(fd, at: offset, count: count)
    } catch {
      throw SyncError(
        .unavailable, "“\(file)” could not be read to sync it: \(error.description).",
        cause: error)
    }
    // A file cut short since it was listed reads fewer bytes: it changed.
    guard bytes.count == count else { throw changedWhileRead(file) }
    return bytes
  }

  /// The error for a file whose bytes changed between two reads: the item is read again.
  static func changedWhileRead(_ file: String) -> SyncError {
    SyncError(
      .changedWhileSyncing, "“\(file)” changed while it was being synced; it is synced again.")
  }
}
