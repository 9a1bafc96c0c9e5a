import Foundation
import QuireApp

/// What `app-list` and `app-ui` run: the app's server on a library, in this process, and their
/// peer, Python's `http.server` listing the same folder.
enum BenchApp {
  /// A running `AppServer` on `library`: the address it serves (with its token), the token,
  /// and the task serving it (cancel it to stop).
  static func start(_ library: URL) async throws -> (
    address: URL, token: String, serving: Task<Void, Error>
  ) {
    let configuration = AppConfiguration(library: library, port: 0)
    let server = try await AppServer(configuration, index: nil)
    let (ready, readyContinuation) = AsyncStream.makeStream(of: URL.self)
    let serving = Task { try await server.run { readyContinuation.yield($0) } }
    var readyIterator = ready.makeAsyncIterator()
    guard let started = await readyIterator.next(), started.port != nil else {
      serving.cancel()
      throw RawFiles.Failure(description: "the app did not start")
    }
    return (started, configuration.token, serving)
  }

  /// Runs `body` with the port of Python's http.server serving `library`, then stops it.
  static func withPythonServer<Result>(
    _ library: URL, _ body: (Int) async throws -> Result
  ) async throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-m", "http.server", "0", "--bind", "127.0.0.1", "-d", library.path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    var environment = ProcessInfo.processInfo.environment
    environment["PYTHONUNBUFFERED"] = "1"
    process.environment = environment
    try process.run()
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    // "Serving HTTP on 127.0.0.1 port N (http://127.0.0.1:N/) ..."
    let line = LineSource(output.fileHandleForReading).next() ?? ""
    guard let port = line.split(separator: " ").dropFirst(5).first.flatMap({ Int($0) }) else {
      throw RawFiles.Failure(description: "http.server did not start: \(line)")
    }
    return try await body(port)
  }
}
