import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The project's executables built beside the test bundle, run as real separate processes.
enum Executables {
  /// The build products folder (`.build/debug`), where `quire` and the test helper are.
  static let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent()

  static func url(_ name: String) -> URL { folder.appendingPathComponent(name) }

  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs `name` as ``run(_:_:environment:input:)`` does, on a thread of its own rather than
  /// the caller's actor or a cooperative thread. A test on the main actor must wait for a
  /// process this way: a process that coordinates may need an answer from a presenter in this
  /// process, and the presenters of other tests' documents answer on the main actor, so holding
  /// it while waiting deadlocked the suite until the process was killed. Nor may the wait hold
  /// one of the few cooperative threads every other test needs.
  static func runDetached(
    _ name: String, _ arguments: [String], environment: [String: String] = [:],
    input: String? = nil
  ) async throws -> Output {
    try await onThread { try run(name, arguments, environment: environment, input: input) }
  }

  /// ``runCommand(_:_:environment:input:timeout:)`` on a thread of its own: see
  /// ``runDetached(_:_:environment:input:)``.
  static func runCommandDetached(_ executable: URL, _ arguments: [String]) async throws -> Output {
    try await onThread { try runCommand(executable, arguments) }
  }

  /// Runs `name` with `arguments` to completion and captures its output.
  static func run(
    _ name: String, _ arguments: [String], environment: [String: String] = [:],
    input: String? = nil
  ) throws -> Output {
    try runCommand(url(name), arguments, environment: environment, input: input)
  }

  /// Runs any program to completion (killed after `timeout` seconds) and captures its output.
  static func runCommand(
    _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
    input: String? = nil, timeout: Double = 300
  ) throws -> Output {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    // Output goes to files, not pipes: a pipe's end that a concurrent spawn handed to another
    // program (a server kept for the whole run) would keep a read to its end waiting forever.
    let files = FileManager.default.temporaryDirectory
    let outURL = files.appendingPathComponent("quire-test-out-\(UUID().uuidString)")
    let errURL = files.appendingPathComponent("quire-test-err-\(UUID().uuidString)")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    defer {
      try? FileManager.default.removeItem(at: outURL)
      try? FileManager.default.removeItem(at: errURL)
    }
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    process.standardOutput = out
    process.standardError = err
    let stdin = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    do {
      try process.run()
    } catch {
      try? out.close()
      try? err.close()
      throw error
    }
    try out.close()
    try err.close()
    // A child that hangs is killed after `timeout`, so its test fails rather than the whole
    // run hanging.
    let pid = process.processIdentifier
    let killer = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
    defer { killer.cancel() }
    if let input {
      stdin.fileHandleForWriting.write(Data(input.utf8))
      try stdin.fileHandleForWriting.close()
    }
    let status = process.waitForExit()
    return Output(
      status: status,
      stdout: String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self),
      stderr: String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self))
  }

  /// Whether Info-ZIP's `zip` and `unzip` are installed (`scripts/test` installs them).
  static let hasInfoZip = which("zip") != nil && which("unzip") != nil

  /// The path of a program on $PATH, or nil.
  static func which(_ name: String) -> URL? {
    for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
      separator: ":")
    {
      let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }
}

/// Reads a child's stdout line by line as it arrives.
final class LineReader {
  private let handle: FileHandle
  private var buffer = Data()

  init(_ handle: FileHandle) { self.handle = handle }

  /// The next line if one has arrived, without waiting.
  func nextLineIfAvailable() -> String? {
    if let newline = buffer.firstIndex(of: 0x0A) {
      let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
      buffer.removeSubrange(buffer.startIndex...newline)
      return line
    }
    var pollDescriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&pollDescriptor, 1, 0) > 0 else { return nil }
    let chunk = handle.availableData
    buffer.append(chunk)
    return chunk.isEmpty ? nil : nextLineIfAvailable()
  }

  /// The next line, or nil at end of file (the child exited) or if none came within `seconds`:
  /// a child that hangs fails its test instead of hanging the whole run (a blocked read is
  /// beyond the reach of a test's time limit).
  func nextLine(within seconds: Double = 180) -> String? {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        return line
      }
      let left = deadline - ContinuousClock.now
      guard left > .zero else {
        print("LineReader: no line from the child within \(seconds) s")
        return nil
      }
      var pollDescriptor = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
      let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 60_000))
      guard poll(&pollDescriptor, 1, milliseconds) > 0 else { continue }
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      buffer.append(chunk)
    }
  }
}
