import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The names that appear in and leave one folder (not below it), as the kernel reports them:
/// a waiter that makes a request file and waits for another process's answer beside it. The
/// watch holds from ``init(folder:)``, so an answer given after that is never missed, however
/// soon it comes.
///
/// Hand-written rather than ``FileMonitor``: that one watches a whole tree (a walk of the
/// synced folder) and batches its events, where a waiter needs one folder's names, at once.
package final class FolderNameWatch {
  /// A name that appeared (created, or moved in) or left (deleted, or moved out).
  package enum Change: Equatable, Sendable {
    case appeared(String)
    case left(String)
    /// The folder itself was removed or moved away: nothing more will be heard.
    case folderGone
    /// The kernel's queue overflowed: changes were lost, so look at the folder itself.
    case overflow
  }

  private let fd: Int32
  private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

  /// Starts watching `folder`.
  package init(folder: String) throws(SystemCallError) {
    try Sys.check("inotify_init1")
    fd = inotify_init1(Int32(IN_CLOEXEC))
    guard fd >= 0 else { throw Sys.failure("inotify_init1") }
    let mask = IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF
    var failure: SystemCallError?
    do throws(SystemCallError) {
      try Sys.check("inotify_add_watch")
    } catch { failure = error }
    if failure == nil && inotify_add_watch(fd, folder, UInt32(mask) | UInt32(IN_ONLYDIR)) < 0 {
      failure = Sys.failure("inotify_add_watch")
    }
    if let failure {
      Glibc.close(fd)
      throw failure
    }
  }

  deinit { Glibc.close(fd) }

  /// The changes heard next, waiting for them until `deadline`; empty once it has passed.
  package func next(before deadline: ContinuousClock.Instant) throws(SystemCallError) -> [Change] {
    while true {
      let left = deadline - ContinuousClock.now
      guard left > .zero else { return [] }
      var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      // Rounded up to a whole millisecond: poll's unit, so that the last one does not spin.
      let milliseconds = Int32(
        min(
          left.components.seconds * 1000 + (left.components.attoseconds + 999_999_999_999_999)
            / 1_000_000_000_000_000,
          60_000))
      try Sys.check("poll")
      let polled = poll(&ready, 1, milliseconds)
      if polled < 0 {
        if cquire_errno() == EINTR { continue }
        throw Sys.failure("poll")
      }
      if polled == 0 { continue }
      let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
      if count < 0 {
        if cquire_errno() == EINTR { continue }
        throw Sys.failure("read")
      }
      return Self.changes(in: buffer[..<count])
    }
  }

  /// The changes in a read of `inotify_event` records.
  private static func changes(in bytes: ArraySlice<UInt8>) -> [Change] {
    var changes: [Change] = []
    bytes.withUnsafeBytes { raw in
      var at = 0
      while at + 16 <= raw.count {
        let mask = raw.load(fromByteOffset: at + 4, as: UInt32.self)
        let length = Int(raw.load(fromByteOffset: at + 12, as: UInt32.self))
        let name = String(
          decoding: raw[(at + 16)..<min(at + 16 + length, raw.count)].prefix { $0 != 0 },
          as: UTF8.self)
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
          changes.append(.overflow)
        } else if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
          changes.append(.folderGone)
        } else if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
          changes.append(.appeared(name))
        } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
          changes.append(.left(name))
        }
        at += 16 + length
      }
    }
    return changes
  }
}
