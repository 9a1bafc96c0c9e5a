import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// What recovering a package found: nothing, a committed save that it finished, or an
/// unfinished save that it undid. Either way the package afterwards is exactly one whole version
/// of the document.
public enum SaveRecovery: Sendable, Hashable, CustomStringConvertible {
  /// The package had no interrupted save.
  case nothingToRecover
  /// A save had been committed when it was interrupted; recovery finished it (the new version).
  case finishedInterruptedSave
  /// A save was interrupted before it committed; recovery removed its traces (the old version).
  case discardedUnfinishedSave

  /// A short phrase for people, such as "finished an interrupted save".
  public var description: String {
    switch self {
    case .nothingToRecover: "no interrupted save"
    case .finishedInterruptedSave: "finished an interrupted save"
    case .discardedUnfinishedSave: "discarded an unfinished save (the previous version is intact)"
    }
  }

  /// Recovers the package at `url` if a save of it was interrupted, and tells what it did.
  /// Reading a package with ``FileWrapper`` does this by itself; call this to learn the outcome.
  ///
  /// - Throws: ``QuireError`` if the package cannot be locked or repaired (for example when it is
  ///   read-only and has an interrupted save).
  public static func recoverPackage(at url: URL) throws(QuireError) -> SaveRecovery {
    let path = url.standardizedFileURL.path
    do throws(SystemCallError) {
      let lock = try PackageLock(path: path, exclusive: true)
      defer { lock.release() }
      return try recover(lockedPackage: lock.fd, path: path)
    } catch {
      throw QuireError.system(error, action: "recover the interrupted save of", path: path)
    }
  }

  /// Recovers the package open as `fd`, which the caller holds locked exclusively.
  static func recover(lockedPackage fd: Int32, path: String) throws(SystemCallError) -> SaveRecovery
  {
    let leftovers = try Sys.listDirectory(fd).map(\.name).filter(SaveJournal.isBookkeeping)
    guard !leftovers.isEmpty else { return .nothingToRecover }
    var outcome = SaveRecovery.nothingToRecover
    if leftovers.contains(SaveJournal.fileName) {
      let journalPath = path.appendingPathComponent(SaveJournal.fileName)
      let journalFd = try Sys.open(journalPath, O_RDONLY | O_NOFOLLOW)
      let data = try Sys.readAll(journalFd, size: Int(try Sys.status(of: journalFd).st_size))
      Sys.close(journalFd)
      if let journal = SaveJournal.decode(data) {
        for directory in try journal.apply(root: path) { try Sys.fsyncDirectory(directory) }
        outcome = .finishedInterruptedSave
      } else {
        outcome = .discardedUnfinishedSave
      }
      try Sys.unlink(journalPath)
      try Sys.fsync(fd)
    }
    // Replaying the journal moves replaced items to trash, so list the leftovers again.
    let remaining =
      outcome == .finishedInterruptedSave
      ? try Sys.listDirectory(fd).map(\.name).filter(SaveJournal.isBookkeeping) : leftovers
    for name in remaining where name != SaveJournal.fileName {
      if name.hasPrefix(SaveJournal.stagePrefix) && outcome == .nothingToRecover {
        outcome = .discardedUnfinishedSave
      }
      try Sys.removeTree(path.appendingPathComponent(name))
    }
    return outcome
  }
}
