import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The files a download is about to replace, checked and held open until the replacement is
/// done, so a write by a program that does not coordinate is never lost to it.
///
/// A coordinated writer waits for the download; another program does not. If it writes a file
/// before the check, the check sees it and the download stops. If it writes in the moment
/// between the check and the rename that replaces the file (a staged file's fsync is in
/// between), its bytes go into the replaced file, which no name reaches any more: the held
/// descriptor still does. ``restoreOverwritten()`` finds such a file changed, reads it back and
/// puts it in place again, and the download stops with `changedWhileSyncing`, so the agent
/// uploads the write on the revision it was made on and the server merges the two.
final class ReplacedFiles {
  private struct Held: Sendable {
    let path: String
    let file: String
    let fd: Int32
    let info: stat
  }

  private var held: [Held] = []

  /// Checks each of `paths` (members of the item at `root`; "" for a flat file) against what the
  /// agent last saw of it in `expected`, and holds it open. A member the agent has no record of
  /// is not checked: it is new from the server. Past ``heldAtMost`` files, the rest are checked
  /// but not held (a download that replaces thousands of members must not run out of file
  /// descriptors; a write in the moment after their check is then not put back).
  ///
  /// - Throws: ``SyncError`` `changedWhileSyncing` if one changed since.
  init(checking paths: [String], at root: URL, expected: [String: LocalItem.Member]) throws {
    for path in paths {
      guard let known = expected[path], known != .inCloud else { continue }
      let found: (file: String, info: stat)?
      if held.count < Self.heldAtMost {
        found = Self.hold(path, in: root).map {
          held.append($0)
          return ($0.file, $0.info)
        }
      } else {
        let file = path.isEmpty ? root.path : root.appendingPathComponent(path).path
        found = (try? Sys.status(file)).flatMap { LocalScanner.isRegular($0) ? (file, $0) : nil }
      }
      guard let found else { continue }  // gone (it is written anew), or not a regular file
      if LocalScanner.member(found.info) != known {
        close()
        throw SyncError(
          .changedWhileSyncing,
          "“\(found.file)” changed while a newer version was downloaded; it is uploaded first and merged."
        )
      }
    }
  }

  /// How many files one download holds open at most.
  static let heldAtMost = 64

  deinit { close() }

  /// After the replacement: puts back every held file that another program wrote since the
  /// check, as it wrote it. A file a program still has open for writing (written yet or not:
  /// it may write after this look) is put back, if it was written, once the program closes
  /// it, by a thread of its own (the download does not wait): `waiting` is told its path then,
  /// and `restored` once each such wait is over.
  ///
  /// - Throws: ``SyncError`` `changedWhileSyncing` naming the files put back or waited for, if
  ///   any: the download is not recorded, and the agent uploads them next (the late put-back
  ///   is itself a change the monitor reports).
  func restoreOverwritten(
    waiting: (String) -> Void = { _ in },
    restored: @escaping @Sendable (String) -> Void = { _ in }
  ) throws {
    defer { close() }
    var changed: [String] = []
    for file in held {
      let written = hasChanged(file)
      // Not a quiet moment: a writer that truncated the file may write much later, and one
      // that opened it before the replacement may write after this look. No name reaches the
      // replaced file any more, so its writers are those that had it open; the kernel says
      // when the last one closed it.
      if Sys.hasWriters(file.fd) == true {
        guard let copy = try? Sys.duplicate(file.fd) else { continue }
        let late = Held(path: file.path, file: file.file, fd: copy, info: file.info)
        changed.append(file.file)
        waiting(file.file)
        BackgroundThread.start("quire-sync-put-back") {
          defer { Sys.close(late.fd) }
          _ = Sys.waitForWriters(of: late.fd, bound: Self.writerBound)
          // Told even if there was nothing to put back, or it could not be: nothing more can
          // be done for it, and the agent holds the item only until then.
          if Self.hasChanged(late) { _ = try? Self.putBack(late) }
          restored(late.file)
        }
        continue
      }
      guard written else { continue }
      changed.append(file.file)
      // Not `restored`: nothing waited for it. The agent counts the waits told and the ones
      // over, and holds the item (and `quire sync wait`) until they match.
      try Self.putBack(file)
    }
    guard !changed.isEmpty else { return }
    throw SyncError(
      .changedWhileSyncing,
      "“\(changed.joined(separator: "”, “"))” changed while a newer version was downloaded; the change is kept, uploaded and merged."
    )
  }

  /// Puts the bytes of the replaced file `file` back under its name.
  private static func putBack(_ file: Held) throws {
    let info = (try? Sys.status(of: file.fd)) ?? file.info
    try put(read(file, size: Int(info.st_size)), back: file, info: info)
  }

  /// The regular file at `path` in the item at `root`, open, with its status; nil if it is not
  /// there or not a regular file.
  private static func hold(_ path: String, in root: URL) -> Held? {
    let file = path.isEmpty ? root.path : root.appendingPathComponent(path).path
    guard let fd = try? Sys.open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK) else { return nil }
    guard let info = try? Sys.status(of: fd), LocalScanner.isRegular(info) else {
      Sys.close(fd)
      return nil
    }
    return Held(path: path, file: file, fd: fd, info: info)
  }

  /// Closes the held files.
  func close() {
    for file in held { Sys.close(file.fd) }
    held = []
  }

  private func hasChanged(_ file: Held) -> Bool { Self.hasChanged(file) }

  /// Whether `file` was written since it was checked.
  private static func hasChanged(_ file: Held) -> Bool {
    guard let now = try? Sys.status(of: file.fd) else { return false }
    return !same(now, file.info)
  }

  /// Size and modification time: a write changes them, while the replacement itself (a rename
  /// over the file, which unlinks it) changes only its status time.
  private static func same(_ one: stat, _ other: stat) -> Bool {
    one.st_size == other.st_size && one.st_mtim.tv_sec == other.st_mtim.tv_sec
      && one.st_mtim.tv_nsec == other.st_mtim.tv_nsec
  }

  /// How long a late put-back waits for a writer that keeps the replaced file open. Past it,
  /// what the file holds then is put back and uploaded; a later write has no name to reach.
  static let writerBound = Duration.seconds(60)

  /// What the replaced file holds now; as much as could be read, if a read fails part-way.
  private static func read(_ file: Held, size: Int) -> [UInt8] {
    (try? Sys.read(file.fd, at: 0, count: size)) ?? []
  }

  /// Writes `bytes` into the file the download put there, in place, with the mode and time the
  /// writer left, and fsyncs it. In place, not renamed over it: a rename would leave a file no
  /// name reaches once more, for a write that comes meanwhile to be lost in.
  private static func put(_ bytes: [UInt8], back file: Held, info: stat) throws {
    // Created again if the download removed it: a change beats a removal.
    let fd: Int32
    do {
      fd = try Sys.open(file.file, O_WRONLY | O_CREAT | O_NOFOLLOW, mode: info.st_mode & 0o7777)
    } catch {
      throw SyncError(
        .unavailable,
        "Could not put back “\(file.file)”, changed while a newer version was downloaded: \(error.description).",
        cause: error)
    }
    defer { Sys.close(fd) }
    do {
      try Sys.truncate(fd, to: 0)
      try bytes.withUnsafeBytes { try Sys.write(fd, $0) }
      // The mode and time as the writer left them, where the file's owner lets us set them.
      try? Sys.chmod(fd, info.st_mode & 0o7777)
      try? Sys.setModificationTime(of: fd, info.st_mtim)
      try Sys.fsync(fd)
    } catch {
      throw SyncError(
        .unavailable,
        "Could not put back “\(file.file)”, changed while a newer version was downloaded; check the free space.",
        cause: error)
    }
  }
}
