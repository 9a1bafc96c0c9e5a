import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts the long-lived threads Quire owns (inotify readers, the presenter socket).
package enum BackgroundThread {
  /// Runs `body` on a new thread named `name` that blocks every blockable signal, so a
  /// process-directed signal such as SIGTERM goes to a thread that handles it (the main thread
  /// of ``Document/saveOpenDocumentsOnTermination()``), never to this one to be dropped.
  package static func start(_ name: String, _ body: @escaping @Sendable () -> Void) {
    let thread = Thread {
      var all = sigset_t()
      sigfillset(&all)
      pthread_sigmask(SIG_BLOCK, &all, nil)
      body()
    }
    thread.name = name
    thread.start()
  }
}
