#if canImport(Glibc)
  import Glibc
#endif

/// The signals that stop a long-running command: SIGTERM (`systemctl stop`, `kill`) and SIGINT
/// (Ctrl+C).
enum StopSignals {
  /// Takes SIGTERM and SIGINT back on the calling (main) thread. A command started by a program
  /// whose thread blocked them (Swift concurrency's worker threads do) inherits them blocked and
  /// would never hear them.
  static func unblock() {
    var stopSignals = sigset_t()
    sigemptyset(&stopSignals)
    sigaddset(&stopSignals, SIGTERM)
    sigaddset(&stopSignals, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &stopSignals, nil)
  }
}
