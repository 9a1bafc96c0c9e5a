import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Another process (`quire-bench coordination-writer FILE`) that makes one coordinated write of
/// FILE per request and answers with the moment it finished.
final class CoordinatedWriterProcess {
  private let process = Process()
  private let commands = Pipe()
  private let answers: LineSource

  init(writing file: URL) throws {
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["coordination-writer", file.path]
    let output = Pipe()
    process.standardInput = commands
    process.standardOutput = output
    answers = LineSource(output.fileHandleForReading)
    try process.run()
  }

  /// Writes `version` into the file; returns when the write finished (monotonic ms).
  func write(_ version: Int) throws -> Double {
    commands.fileHandleForWriting.write(Data("\(version)\n".utf8))
    guard let line = answers.next(), let finished = Double(line) else {
      throw RawFiles.Failure(description: "the writer process stopped")
    }
    return finished
  }

  /// SIGKILL: a child spawned from a concurrency thread inherits that thread's blocked SIGTERM.
  deinit {
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }
}
