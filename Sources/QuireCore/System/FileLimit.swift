#if canImport(Glibc)
  import Glibc
#endif

/// The process's limit on open files. Every connection of a server is a file: at the usual
/// soft limit of 1024, a thousand idle connections would starve everyone else. A sync agent
/// holds a page of unnamed placeholders open at once.
package enum FileLimit {
  /// Raises the soft limit to the hard one (what systemd's `LimitNOFILE` sets) and returns the
  /// limit in force.
  @discardableResult
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

  /// The limit in force (the soft one); 1024, the usual default, if the kernel does not say.
  package static var current: Int {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
    return Int(clamping: min(limit.rlim_cur, UInt(Int.max / 2)))
  }
}
