import CQuireShims

#if canImport(Glibc)
  import Glibc
#endif

/// Names of the hidden items Quire builds beside their destination before a rename publishes
/// them, and the clean-up of those left behind by a process that died.
///
/// Each name carries the writer's process ID, so a leftover whose process is gone can be deleted
/// safely. (If the ID was reused by another process, the leftover is only kept longer.)
enum TemporaryName {
  /// `.NAME.quire-new-PID-TOKEN` for a new version of `name`.
  static func forNewVersion(of name: String) -> String {
    ".\(name).quire-new-\(getpid())-\(token())"
  }

  /// `.quire-import-PID-TOKEN` for an import being built.
  static func forImport() -> String {
    ".quire-import-\(getpid())-\(token())"
  }

  private static func token() -> String { String(UInt64.random(in: 1...UInt64.max), radix: 36) }

  /// Deletes leftovers in `folder` (of `name`'s new versions, or of imports when `name` is nil)
  /// whose writing process no longer exists. Best effort: a failure leaves them for next time.
  static func removeStale(in folder: String, for name: String?) {
    let prefix = name.map { ".\($0).quire-new-" } ?? ".quire-import-"
    guard let entries = try? Sys.listDirectory(at: folder) else { return }
    for entry in entries where entry.name.hasPrefix(prefix) {
      let rest = entry.name.dropFirst(prefix.count)
      guard let pidText = rest.split(separator: "-").first, let pid = pid_t(pidText) else {
        continue
      }
      if pid == getpid() || kill(pid, 0) == 0 || cquire_errno() != ESRCH { continue }  // still running
      try? Sys.removeTree(folder.appendingPathComponent(entry.name))
    }
  }
}
