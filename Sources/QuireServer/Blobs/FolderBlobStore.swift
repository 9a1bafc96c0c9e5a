import Foundation
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Chunk bytes in a folder: each upload's chunks appended to one pack file (`packs/UUID`), at
/// offsets the database records; chunks stored before packs existed stay loose, one file per
/// chunk named by its hash (`ab/abcdef…`), and are still read.
///
/// A pack, not a file per chunk: a first sync of 10 000 small documents is 10 000 chunks, and
/// creating an inode each took the server's file system more time than everything else it did.
/// A pack is written whole under its own new name and never changed; durability comes from its
/// own `fsync` and one of the packs' folder per upload, before the database names the pack. A crash leaves at worst a pack no
/// row names, and the chunks in it are asked for again.
struct FolderBlobStore: BlobStore {
  let folder: URL

  init(folder: URL) throws {
    self.folder = folder
    let packs = folder.appendingPathComponent("packs")
    if (try? Sys.status(packs.path)) == nil {
      try FileManager.default.createDirectory(at: packs, withIntermediateDirectories: true)
      // Its name made durable once, as each pack's is in it (``sync()``).
      try Sys.fsyncDirectory(folder.path)
    }
  }

  func writePack(_ pieces: [ArraySlice<UInt8>]) throws(SyncError) -> (
    pack: String, offsets: [Int]
  ) {
    let name = UUID().uuidString
    let path = folder.path + "/packs/" + name
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw failure("create", path) }
    defer { close(fd) }
    var offsets: [Int] = []
    var offset = 0
    for piece in pieces {
      offsets.append(offset)
      let written = piece.withUnsafeBytes { buffer in (try? Sys.write(fd, buffer)) != nil }
      guard written else {
        unlink(path)
        throw failure("write", path)
      }
      offset += piece.count
    }
    do {
      try Sys.fsync(fd)
    } catch {
      unlink(path)
      throw SyncError(
        .unavailable,
        "The server could not fsync “\(path)”: \(error.description). Check its disk.",
        cause: error)
    }
    return (name, offsets)
  }

  /// Each pack's bytes are made durable as it is written (its own `fsync`); what is left is
  /// the packs' names, one `fsync` of their folder. Not a `syncfs`: that flushes everything
  /// dirty on the file system, and a server beside a device's synced folder, or beside a
  /// copy in progress, then waited for gigabytes that were none of its business.
  func sync() throws(SyncError) {
    let packs = folder.path + "/packs"
    do {
      try Sys.fsyncDirectory(packs)
    } catch {
      throw SyncError(
        .unavailable,
        "The server could not fsync “\(packs)”: \(error.description). Check its disk.",
        cause: error)
    }
  }

  /// Opens each pack once.
  func read(_ locations: [(hash: ContentHash, location: BlobLocation)]) throws(SyncError)
    -> [[UInt8]]
  {
    var open: [String: Int32] = [:]
    defer { for fd in open.values { close(fd) } }
    var result: [[UInt8]] = []
    for (hash, location) in locations {
      guard let pack = location.pack else {
        result.append(try readLoose(hash, size: location.size))
        continue
      }
      let fd: Int32
      if let held = open[pack] {
        fd = held
      } else {
        fd = Glibc.open(folder.path + "/packs/" + pack, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw lost(hash) }
        open[pack] = fd
      }
      var bytes = [UInt8](repeating: 0, count: location.size)
      let count = bytes.withUnsafeMutableBytes {
        pread(fd, $0.baseAddress, location.size, off_t(location.offset))
      }
      guard count == location.size else { throw lost(hash) }
      result.append(bytes)
    }
    return result
  }

  func packs() throws(SyncError) -> [String: StoredBlob] {
    let packs = folder.path + "/packs"
    var found: [String: StoredBlob] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: packs)) ?? [] {
      if let blob = Self.stored(packs + "/" + name) { found[name] = blob }
    }
    return found
  }

  func looseChunk(_ hash: String) -> StoredBlob? { Self.stored(loosePath(hash)) }

  func removePack(_ name: String) -> Bool { unlink(folder.path + "/packs/" + name) == 0 }

  func removeLooseChunk(_ hash: String) -> Int64? { Self.remove(loosePath(hash)) }

  private func loosePath(_ hash: String) -> String {
    folder.path + "/" + hash.prefix(2) + "/" + hash
  }

  private static func stored(_ path: String) -> StoredBlob? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return StoredBlob(
      size: Int64(info.st_size),
      modified: Date(
        timeIntervalSince1970: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
  }

  private static func remove(_ path: String) -> Int64? {
    guard let blob = stored(path), unlink(path) == 0 else { return nil }
    return blob.size
  }

  /// The `size` bytes of the loose chunk `hash`, read whole (short reads continued).
  private func readLoose(_ hash: ContentHash, size: Int) throws(SyncError) -> [UInt8] {
    let fd = Glibc.open(loosePath(hash.hex), O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw lost(hash) }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: size)
    var done = 0
    while done < size {
      let count = bytes.withUnsafeMutableBytes {
        Glibc.read(fd, $0.baseAddress! + done, size - done)
      }
      if count < 0, errno == EINTR { continue }
      guard count > 0 else { throw lost(hash) }
      done += count
    }
    return bytes
  }

  private func lost(_ hash: ContentHash) -> SyncError {
    SyncError(
      .unavailable, "The server has lost the bytes of chunk \(hash); its blob folder is damaged.")
  }

  private func failure(_ action: String, _ path: String) -> SyncError {
    SyncError(
      .unavailable,
      "The server could not \(action) “\(path)”: \(String(cString: strerror(errno))). Check its disk."
    )
  }
}
