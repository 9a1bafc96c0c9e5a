import CQuireShims
import Foundation
import Quire
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Chunk bytes in a folder, one file per chunk named by its hash (`ab/abcdef…`).
///
/// A chunk is written to a temporary name and renamed into place, so a name always holds whole,
/// verified bytes. Durability comes from one `syncfs` per upload, before the database records
/// the chunks: a crash leaves at worst an unrecorded file, which the next upload of that chunk
/// overwrites.
struct BlobStore: Sendable {
  let folder: URL

  init(folder: URL) throws {
    self.folder = folder
    try FileManager.default.createDirectory(
      at: folder.appendingPathComponent("incoming"), withIntermediateDirectories: true)
  }

  func path(of hash: ContentHash) -> String {
    folder.path + "/" + hash.hex.prefix(2) + "/" + hash.hex
  }

  func contains(_ hash: ContentHash) -> Bool { access(path(of: hash), F_OK) == 0 }

  /// Writes `bytes` under `hash` (which the caller has verified) unless present.
  func write(_ hash: ContentHash, _ bytes: ArraySlice<UInt8>) throws(SyncError) {
    let final = path(of: hash)
    if access(final, F_OK) == 0 { return }
    let temporary = folder.path + "/incoming/" + UUID().uuidString
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw failure("create", temporary) }
    let written = bytes.withUnsafeBytes { buffer in (try? Sys.write(fd, buffer)) != nil }
    close(fd)
    guard written else {
      unlink(temporary)
      throw failure("write", temporary)
    }
    if rename(temporary, final) != 0 {
      guard errno == ENOENT,
        mkdir(folder.path + "/" + hash.hex.prefix(2), 0o700) == 0 || errno == EEXIST,
        rename(temporary, final) == 0
      else {
        unlink(temporary)
        throw failure("store", final)
      }
    }
  }

  /// Makes every chunk written so far durable.
  func sync() throws(SyncError) {
    let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw failure("open", folder.path) }
    defer { close(fd) }
    guard cquire_syncfs(fd) == 0 else { throw failure("sync", folder.path) }
  }

  /// The bytes of `hash`.
  func read(_ hash: ContentHash) throws(SyncError) -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path(of: hash)) else {
      throw SyncError(
        .unavailable, "The server has lost the bytes of chunk \(hash); its blob folder is damaged.")
    }
    return [UInt8](data)
  }

  private func failure(_ action: String, _ path: String) -> SyncError {
    SyncError(
      .unavailable,
      "The server could not \(action) “\(path)”: \(String(cString: strerror(errno))). Check its disk."
    )
  }
}
