import Foundation
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Waits until a running agent has synced everything that happened before the wait began
/// (`quire sync wait`): every change made in the folder is uploaded, and every change the
/// server held is applied here, in every share too (one made, renamed or revoked before the
/// wait began has arrived, followed, or left the device).
///
/// It asks with a request file in the synced folder (Watchman's "cookie"), never with time. The
/// kernel reports a folder's events in order, so when the agent's monitor hears the request
/// file, it has heard every change made before it. The agent answers (renames the request to
/// its answer's name) only once it has asked the server what is shared with the account (and
/// started or stopped shares' agents as that says), and each share's agent and then the agent
/// itself have made a
/// request of their own, heard it, and finished a push and a pull begun after it, with nothing
/// held back (a writer still at an item, an upload that failed: the wait then ends at its
/// timeout, and `quire sync status` names the item). The names start with the agent's hidden
/// prefix, so they are never synced. The waiter holds a lock on its request while it waits: an
/// agent that finds it unlocked (the waiter was killed) removes it rather than answer it.
public enum SyncBarrier {
  /// The start of a request's name; its answer's starts with ``answerPrefix``.
  static let requestPrefix = ".quire-sync-wait-"
  /// The start of an answer's name.
  static let answerPrefix = ".quire-sync-waited-"

  /// Whether `name` is a request.
  static func isRequest(_ name: Substring) -> Bool { name.hasPrefix(requestPrefix) }

  /// A new request's name.
  static func requestName() -> String { requestPrefix + UUID().uuidString }

  /// The answer to the request `name`.
  static func answerName(for name: String) -> String {
    answerPrefix + name.dropFirst(requestPrefix.count)
  }

  /// Waits, blocking the calling thread, until the agent syncing `folder` (its state in
  /// `stateFile`, its pause marker `pauseMarker`) has synced everything that happened before
  /// this call, for at most `timeout`.
  ///
  /// - Throws: ``SyncError`` `unavailable` if no agent syncs the folder, syncing is paused, or
  ///   the folder cannot be watched or written (without waiting); `notInSync` if the folder was
  ///   not in sync when `timeout` passed.
  public static func wait(
    folder: URL, stateFile: URL, pauseMarker: URL = SyncSettings.pauseMarker, timeout: Duration
  ) throws(SyncError) {
    let path = folder.standardizedFileURL.path
    if let refusal = refusal(folder: path, stateFile: stateFile, pauseMarker: pauseMarker) {
      throw refusal
    }
    let watch: FolderNameWatch
    do { watch = try FolderNameWatch(folder: path) } catch {
      throw SyncError(
        .unavailable,
        "Could not watch “\(path)” for the agent's answer (\(error.reason)): check that it is a folder you can read; if inotify's limits are reached, raise fs.inotify.max_user_instances.",
        cause: error)
    }
    var request = try Request(in: path)
    defer { request.withdraw() }
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let changes: [FolderNameWatch.Change]
      do { changes = try watch.next(before: deadline) } catch {
        throw SyncError(
          .unavailable,
          "Could not hear the agent's answer in “\(path)” (\(error.reason)); run the wait again.",
          cause: error)
      }
      for change in changes {
        switch change {
        case .appeared(let name) where name == request.answer:
          return
        case .left(let name) where name == request.name:
          // Renamed to its answer (heard next), or removed by an agent that restarted and
          // cleared its leftovers: then ask again.
          if (try? Sys.exists(path + "/" + request.answer)) != true {
            request.withdraw()
            request = try Request(in: path)
          }
        case .overflow:
          if (try? Sys.exists(path + "/" + request.answer)) == true { return }
        case .folderGone:
          throw SyncError(
            .notFound,
            "“\(path)” was removed or moved while waiting for it: wait on the synced folder where it is now."
          )
        default:
          break
        }
      }
    }
    if (try? Sys.exists(path + "/" + request.answer)) == true { return }
    throw refusal(folder: path, stateFile: stateFile, pauseMarker: pauseMarker)
      ?? SyncError(
        .notInSync,
        "“\(path)” was not in sync after \(timeout.components.seconds) s: quire sync status shows what is left; wait longer with --timeout."
      )
  }

  /// Why no answer can come: syncing paused, or no agent running (the lock beside its state,
  /// which the kernel releases when the agent exits, however it exits).
  private static func refusal(folder: String, stateFile: URL, pauseMarker: URL) -> SyncError? {
    if SyncSettings.isPaused(marker: pauseMarker) {
      return SyncError(
        .unavailable,
        "Syncing is paused on this device, so “\(folder)” will not be in sync: run quire sync resume, then wait again."
      )
    }
    if Sys.isFlocked(stateFile.path + ".lock") != true {
      return SyncError(
        .unavailable,
        "No agent syncs “\(folder)”: start it with quire sync run (or systemctl --user start quire-sync), then wait again."
      )
    }
    return nil
  }

  /// The agent's answer to the request `name` in `folder`: renamed to its answer if its waiter
  /// still holds it, removed if the waiter is gone (the kernel released its lock).
  static func reply(to name: String, in folder: String) {
    let path = folder + "/" + name
    guard let fd = try? Sys.open(path, O_RDONLY) else { return }  // withdrawn
    defer { Sys.close(fd) }
    if (try? Sys.lock(fd, LOCK_EX | LOCK_NB)) != nil {
      try? Sys.unlink(path)
    } else {
      try? Sys.rename(path, folder + "/" + answerName(for: name))
    }
  }

  /// A waiter's request: the file, held open with a shared lock while the waiter lives.
  private struct Request {
    let folder: String
    let name = SyncBarrier.requestName()
    var answer: String { SyncBarrier.answerName(for: name) }
    private let fd: Int32

    init(in folder: String) throws(SyncError) {
      self.folder = folder
      let path = folder + "/" + name
      do {
        fd = try Sys.open(path, O_RDONLY | O_CREAT | O_EXCL, mode: 0o600)
      } catch {
        throw Self.failure(folder, error)
      }
      do { try Sys.lock(fd, LOCK_SH) } catch {
        Sys.close(fd)
        try? Sys.unlink(path)
        throw Self.failure(folder, error)
      }
    }

    private static func failure(_ folder: String, _ error: SystemCallError) -> SyncError {
      SyncError(
        .unavailable,
        "Could not ask the agent in “\(folder)” (\(error.reason)): check that you can write there.",
        cause: error)
    }

    /// Removes the request and any answer, and lets go of the lock.
    func withdraw() {
      try? Sys.unlink(folder + "/" + name)
      try? Sys.unlink(folder + "/" + answer)
      Sys.close(fd)
    }
  }
}
