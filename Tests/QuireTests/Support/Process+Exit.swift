import Foundation

#if canImport(Glibc)
  import Glibc
#endif

extension Process {
  /// Waits until the process has exited and returns its exit status (128 + the signal's number
  /// if a signal ended it), asking the kernel (`waitid` with `WNOWAIT`, which leaves reaping to
  /// Foundation).
  ///
  /// Not `waitUntilExit`: Foundation on Linux learns of an exit when every copy of a socket the
  /// child inherited is closed, which never happens while a daemon the child started lives, or
  /// another program that a concurrent spawn handed the socket to (an agent, a server kept for
  /// the whole test run). Its wait then never returns, and the whole test run hangs.
  @discardableResult
  func waitForExit() -> Int32 {
    var info = siginfo_t()
    while waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOWAIT) != 0 {
      guard errno == EINTR else {
        // Foundation reaped it already (ECHILD): it marks it finished right after.
        let deadline = ContinuousClock.now + .seconds(5)
        while isRunning && ContinuousClock.now < deadline {
          usleep(1000)  // polling interval of a bounded wait: Foundation marks it just after
        }
        guard !isRunning else { return -1 }
        return terminationReason == .exit ? terminationStatus : 128 + terminationStatus
      }
    }
    let status = info._sifields._sigchld.si_status
    return info.si_code == CLD_EXITED ? status : 128 + status
  }

  /// Whether the process has exited, asking the kernel without waiting (see ``waitForExit()``
  /// for why not `isRunning`).
  var hasExited: Bool {
    var info = siginfo_t()
    let asked = waitid(P_PID, id_t(processIdentifier), &info, WEXITED | WNOHANG | WNOWAIT)
    return asked != 0 ? !isRunning : info._sifields._kill.si_pid != 0
  }
}
