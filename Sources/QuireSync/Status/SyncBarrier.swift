import Foundation
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Waits until a running agent has synced everything that happened before the wait began
/// (`quire sync wait`): every change made in the folder is uploaded, and every change the
/// server held is applied here, in the shares too.
///
/// It asks with a request file in the synced folder (Watchman's "cookie"), never with time. The
/// kernel reports a folder's events in order, so when the agent's monitor hears the request
/// file, it has heard every change made before it; the agent answers (renames the request to
/// its answer name) only once a push and a pull that began after it are done, nothing is left
/// to do, and each share's agent has done the same with a request of its own. The names start
/// with the agent's hidden prefix, so they are never synced.
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

  /// Waits until the agent syncing `folder` (its state in `stateFile`, its pause marker
  /// `pauseMarker`) has synced everything that happened before this call, for at most
  /// `timeout`.
  ///
  /// - Throws: ``SyncError`` `unavailable` if no agent syncs the folder or syncing is paused
  ///   (without waiting), `notInSync` if the folder was not in sync when `timeout` passed.
  public static func wait(
    folder: URL, stateFile: URL, pauseMarker: URL = SyncSettings.pauseMarker, timeout: Duration
  ) throws(SyncError) {
    let path = folder.standardizedFileURL.path
    if SyncSettings.isPaused(marker: pauseMarker) {
      throw SyncError(
        .unavailable,
        "Syncing is paused on this device, so “\(path)” will not be in sync: run quire sync resume, then wait again."
      )
    }
    guard isAgentRunning(stateFile: stateFile) else {
      throw SyncError(
        .unavailable,
        "No agent syncs “\(path)”: start it with quire sync run (or systemctl --user start quire-sync), then wait again."
      )
    }
    let watch: FolderNameWatch
    do { watch = try FolderNameWatch(folder: path) } catch {
      throw SyncError(
        .unavailable, "Could not watch “\(path)” for the agent's answer: \(error.reason).",
        cause: error)
    }
    var request = requestName()
    try make(request, in: path)
    defer { try? Sys.unlink(path + "/" + request) }
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      let changes: [FolderNameWatch.Change]
      do { changes = try watch.next(before: deadline) } catch {
        throw SyncError(
          .unavailable, "Could not hear the agent's answer in “\(path)”: \(error.reason).",
          cause: error)
      }
      for change in changes {
        switch change {
        case .appeared(let name) where name == answerName(for: request):
          try? Sys.unlink(path + "/" + name)
          return
        case .left(let name) where name == request:
          // Renamed to its answer (heard next), or removed by an agent that restarted and
          // cleared its leftovers: then ask again.
          if (try? Sys.exists(path + "/" + answerName(for: request))) != true {
            request = requestName()
            try make(request, in: path)
          }
        case .folderGone:
          throw SyncError(.notFound, "“\(path)” was removed or moved while waiting for it.")
        default:
          break
        }
      }
    }
    throw SyncError(
      .notInSync,
      "“\(path)” was not in sync after \(timeout.components.seconds) s: quire sync status shows what is left."
    )
  }

  /// Whether an agent holds the lock beside `stateFile` (the kernel releases it when the agent
  /// exits, however it exits). Read from the kernel's list of locks, `/proc/locks`, rather than
  /// by trying the lock: a waiter that held it for an instant could stop an agent starting.
  static func isAgentRunning(stateFile: URL) -> Bool {
    guard let info = try? Sys.status(stateFile.path + ".lock", followLinks: true),
      let data = try? Sys.contents(ofKernelFile: "/proc/locks")
    else { return false }
    let device = UInt64(info.st_dev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    let minor = (device & 0xff) | ((device >> 12) & ~0xff)
    let file = String(format: "%02llx:%02llx:%llu", major, minor, UInt64(info.st_ino))
    return String(decoding: data, as: UTF8.self).split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.contains("FLOCK") && fields.contains(Substring(file))
    }
  }

  private static func make(_ name: String, in folder: String) throws(SyncError) {
    do {
      Sys.close(try Sys.open(folder + "/" + name, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600))
    } catch {
      throw SyncError(
        .unavailable, "Could not ask the agent in “\(folder)”: \(error.reason).", cause: error)
    }
  }
}
