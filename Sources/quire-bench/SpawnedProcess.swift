import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A server the benchmark starts with `posix_spawn`, every signal unblocked and SIGTERM, SIGINT
/// and SIGPIPE at their defaults — a child `Process` starts from a concurrency thread inherits
/// that thread's blocked SIGTERM, and a server that forks workers (Apache) must get SIGTERM to
/// take them down with it. Its standard output and error go to a file.
final class SpawnedProcess {
  /// The child's process identifier.
  let pid: pid_t
  /// Where its standard output and error go.
  let output: URL
  /// Whether it has exited and been reaped.
  private var exited = false

  /// Starts `executable` with `arguments`, this process's environment with `environment` laid
  /// over it, its standard input `/dev/null` and its output appended to `output`.
  init(
    _ executable: String, _ arguments: [String], environment: [String: String] = [:],
    output: URL
  ) throws {
    self.output = output
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output.path, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var unblocked = sigset_t()
    sigemptyset(&unblocked)
    posix_spawnattr_setsigmask(&attributes, &unblocked)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    let variables = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = variables.map { strdup("\($0)=\($1)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var child = pid_t()
    let status = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
    guard status == 0 else {
      throw RawFiles.Failure(
        description: "spawn \(executable): \(String(cString: strerror(status)))")
    }
    pid = child
  }

  /// Whether the child is still running (reaping it if it has exited).
  var isRunning: Bool {
    guard !exited else { return false }
    var status: Int32 = 0
    if waitpid(pid, &status, WNOHANG) == pid { exited = true }
    return !exited
  }

  /// The text it has written so far.
  var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

  /// Sends SIGTERM and waits up to `seconds` for the child to exit, then kills it.
  func stop(seconds: Double = 10) {
    guard isRunning else { return }
    kill(pid, SIGTERM)
    if !SyncRig.waitFor(seconds: seconds, every: .milliseconds(10), { !isRunning }) {
      kill(pid, SIGKILL)
      var status: Int32 = 0
      _ = waitpid(pid, &status, 0)
      exited = true
    }
  }

  /// Stops it if it still runs.
  deinit { stop() }

  /// Runs `executable` to its end with `input` on its standard input; returns its standard
  /// output, or throws with its standard error if it failed.
  @discardableResult
  static func run(
    _ executable: String, _ arguments: [String], input: String? = nil,
    environment: [String: String] = [:]
  ) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe()
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardInput = input == nil ? FileHandle.nullDevice : stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    if let input {
      stdin.fileHandleForWriting.write(Data(input.utf8))
      try stdin.fileHandleForWriting.close()
    }
    // Standard error is read on another thread, so that neither pipe fills while the other is
    // read to its end.
    let errors = LockedList<Data>()
    let reader = Thread { errors.append(stderr.fileHandleForReading.readDataToEndOfFile()) }
    reader.start()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    _ = SyncRig.waitFor(seconds: 10, every: .milliseconds(1)) { !errors.values.isEmpty }
    guard process.terminationStatus == 0 else {
      let message = String(decoding: errors.values.first ?? Data(), as: UTF8.self)
        .split(separator: "\n").suffix(5).joined(separator: "\n")
      throw RawFiles.Failure(
        description: "\(executable) \(arguments.joined(separator: " ")) failed: \(message)")
    }
    return String(decoding: output, as: UTF8.self)
  }
}
