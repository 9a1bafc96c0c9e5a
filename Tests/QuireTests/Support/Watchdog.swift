import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Starts a server the tests need under a watchdog shell: `command` runs in the background (its
/// process identifier in `$w`), and `stop` runs once the shell's standard input closes — when
/// the returned pipe's writing end is closed, or when the test process ends, however it ends.
/// Returns that pipe and the shell's process identifier.
enum Watchdog {
  static func start(_ command: String, stop: String) throws -> (keepAlive: Pipe, shell: Int32) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "\(command) </dev/null & w=$!; read _; \(stop)"]
    let keepAlive = Pipe()
    // Only this shell may hold the writing end: a copy inherited by another child (another
    // watchdog) would keep it from ever seeing the end of input.
    _ = fcntl(keepAlive.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
    process.standardInput = keepAlive
    // Not the test's own output: a watchdog outliving the tests must not hold it open (swift
    // test reads it to its end). `stop` must not `wait` either: a shell started from Swift
    // concurrency may never see its child's SIGCHLD.
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    return (keepAlive, process.processIdentifier)
  }
}
