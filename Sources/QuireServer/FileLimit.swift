#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open files. Every connection is a file: at the usual soft limit of
/// 1024, a thousand idle connections would starve everyone else.
package enum FileLimit {
  /// Raises the soft limit to the hard one (what systemd's `LimitNOFILE` sets) and returns the
  /// limit in force.
  package static func raiseToHard() -> Int {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    if limit.rlim_cur < limit.rlim_max {
      var raised = limit
      raised.rlim_cur = limit.rlim_max
      if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
    }
    return Int(clamping: min(limit.rlim_cur, UInt(Int.max / 2)))  // RLIM_INFINITY is UInt.max
  }
}
