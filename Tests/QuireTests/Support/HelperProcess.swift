import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A running `quire-test-helper` (or `quire`) process whose stdout is read line by line; it is
/// killed with SIGKILL when released, so no test leaves one behind.
///
/// Unchecked `Sendable`: one test uses it at a time, and hands it to ``onThread(_:)`` only while
/// it awaits that thread.
final class HelperProcess: @unchecked Sendable {
  let process = Process()
  let lines: LineReader

  init(
    _ arguments: [String], executable: String = "quire-test-helper",
    environment: [String: String] = [:]
  ) throws {
    process.executableURL = Executables.url(executable)
    process.arguments = arguments
    if !environment.isEmpty {
      process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    }
    let output = Pipe()
    process.standardOutput = output
    process.standardInput = FileHandle.nullDevice
    lines = LineReader(output.fileHandleForReading)
    try process.run()
  }

  /// Kills the process at once (SIGKILL: no cleanup of its own runs).
  func kill() {
    guard !process.hasExited else { return }
    Glibc.kill(process.processIdentifier, SIGKILL)
    process.waitForExit()
  }

  /// Waits for the process to exit by itself and returns its status.
  func wait() -> Int32 {
    process.waitForExit()
  }

  deinit { kill() }
}
