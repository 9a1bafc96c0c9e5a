import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A `quire server` and two devices (folders, XDG folders, `quire sync run` processes) on
/// loopback, the agents reaching the server through a byte-counting proxy.
final class SyncRig {
  let root: URL
  private let quire: URL
  let proxy: ByteCountingProxy
  private var processes: [Process] = []
  let a: URL
  let b: URL
  /// Device B's sync settings (`sync.json` under its XDG config folder).
  var bSettings: URL { root.appendingPathComponent("B/config/quire/sync.json") }

  /// `bArguments` are added to device B's `quire sync run` (`--download on-demand`).
  init(scratch: URL, bArguments: [String] = []) throws {
    root = scratch
    quire = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("quire")
    let data = root.appendingPathComponent("server")
    _ = try Self.run(
      quire, ["server", "add-user", "bench", "--data", data.path], input: "bench-password\n")
    let server = try Self.start(
      quire, ["server", "--data", data.path, "--port", "0"], until: "Quire server listening on ")
    processes.append(server.process)
    let port = URL(string: String(server.line.dropFirst("Quire server listening on ".count)))!.port!
    proxy = try ByteCountingProxy(to: port)
    let deviceA = try Self.startDevice("A", root: root, quire: quire, proxy: proxy.port)
    let deviceB = try Self.startDevice(
      "B", root: root, quire: quire, proxy: proxy.port, arguments: bArguments)
    processes += [deviceA.agent, deviceB.agent]
    a = deviceA.folder
    b = deviceB.folder
  }

  /// Signs in one more device, `name`, and starts its agent with `arguments` added; returns its
  /// synced folder and the agent's process.
  func addDevice(_ name: String, arguments: [String] = []) throws -> (folder: URL, agent: Process) {
    let device = try Self.startDevice(
      name, root: root, quire: quire, proxy: proxy.port, arguments: arguments)
    processes.append(device.agent)
    return device
  }

  private static func startDevice(
    _ name: String, root: URL, quire: URL, proxy: Int, arguments: [String] = []
  ) throws -> (folder: URL, agent: Process) {
    let home = root.appendingPathComponent(name)
    let folder = home.appendingPathComponent("Documents")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let environment = [
      "XDG_CONFIG_HOME": home.appendingPathComponent("config").path,
      "XDG_STATE_HOME": home.appendingPathComponent("state").path,
      "XDG_DATA_HOME": home.appendingPathComponent("data").path,
    ]
    _ = try run(
      quire, ["sync", "login", "http://127.0.0.1:\(proxy)", "--user", "bench", "--device", name],
      input: "bench-password\n", environment: environment)
    let agent = try start(
      quire, ["sync", "run", "--folder", folder.path] + arguments, until: "Syncing ",
      environment: environment)
    return (folder, agent.process)
  }

  /// The peak resident memory so far, in MiB (each process's `VmHWM`), of the server and of
  /// each device's agent.
  var peakMemoryMiB: (server: Double, a: Double, b: Double) {
    let peaks = processes.prefix(3).map { Measurement.peakMemoryMiB(of: $0.processIdentifier) }
    return (peaks[0], peaks[1], peaks[2])
  }

  /// Stops devices A and B (the server keeps running), so that what comes next is timed on an
  /// idle drive, not beside two agents still finishing their own work on the same two cores.
  func stopDevices() {
    for process in processes[1...2] where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  func stop() {
    for process in processes where process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Waits (polling every `every`, 200 µs unless a costly condition asks for less, up to
  /// `seconds`) until `condition` holds; false on timeout.
  static func waitFor(
    seconds: Double = 60, every: Duration = .microseconds(200), _ condition: () -> Bool
  ) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    let pause = useconds_t(every / .microseconds(1))
    while ContinuousClock.now < deadline {
      if condition() { return true }
      usleep(pause)
    }
    return false
  }

  /// Writes `text` to `url` as a save does: a temporary file renamed over it.
  static func save(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url, options: .atomic)
  }

  private static func run(
    _ executable: URL, _ arguments: [String], input: String, environment: [String: String] = [:]
  ) throws -> String {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw RawFiles.Failure(description: "quire \(arguments.joined(separator: " ")) failed")
    }
    return String(decoding: output, as: UTF8.self)
  }

  private static func start(
    _ executable: URL, _ arguments: [String], until prefix: String,
    environment: [String: String] = [:]
  ) throws -> (process: Process, line: String) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    var buffer = Data()
    while true {
      let chunk = stdout.fileHandleForReading.availableData
      guard !chunk.isEmpty else {
        throw RawFiles.Failure(description: "quire \(arguments[0]) exited")
      }
      buffer.append(chunk)
      for line in String(decoding: buffer, as: UTF8.self).split(separator: "\n")
      where line.hasPrefix(prefix) {
        return (process, String(line))
      }
    }
  }
}
