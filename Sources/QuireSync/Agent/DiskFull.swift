import Foundation
import GRDB
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Whether an error comes from this device's disk being full: a write of the agent failed with
/// `ENOSPC` (no space left) or `EDQUOT` (the user's quota), however it was wrapped on the way
/// (a ``SyncError`` or a `QuireError` with the failed call as its cause, Foundation's
/// `CocoaError` from `FileManager`, or SQLite's `SQLITE_FULL` from the state file). The agent says so
/// instead of "offline", and tries again less often (``RetryPause``).
enum DiskFull {
  static func caused(_ error: (any Error)?) -> Bool {
    var current = error
    // Causes nest a few levels at most; the bound only guards against a cycle.
    for _ in 0..<8 {
      switch current {
      case let error as SystemCallError: return error.errno == ENOSPC || error.errno == EDQUOT
      case let error as QuireError:
        if error.code == .noSpace { return true }
        current = error.cause
      case let error as SyncError: current = error.cause
      case let error as DatabaseError: return error.resultCode == .SQLITE_FULL
      case let error as POSIXError:
        return error.code == .ENOSPC || error.code == .EDQUOT
      default:
        // Foundation's errors, by domain: on Linux any NSError casts to CocoaError.
        guard let error = current.map({ $0 as NSError }) else { return false }
        switch error.domain {
        case NSPOSIXErrorDomain: return error.code == Int(ENOSPC) || error.code == Int(EDQUOT)
        case NSCocoaErrorDomain:
          if error.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
          current = error.userInfo[NSUnderlyingErrorKey] as? any Error
        default: return false
        }
      }
    }
    return false
  }
}
