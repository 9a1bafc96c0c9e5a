import Foundation
import Quire
import QuireSync

/// One device: its own XDG config, state and data folders and synced folder, signed in to a server with
/// `quire sync login`, running `quire sync run` as a separate process.
///
/// Unchecked `Sendable`: one test uses it at a time, and hands it to ``onThread(_:)`` only while
/// it awaits that thread (a test on the main actor starts devices that way).
final class SyncDevice: @unchecked Sendable {
  let home: TemporaryDirectory
  let folder: URL
  let environment: [String: String]
  private(set) var agent: HelperProcess?

  init(
    _ name: String, server: SyncServerProcess, user: String = "alice", login: [String] = [],
    via proxy: NetworkProxy? = nil
  ) throws {
    home = try TemporaryDirectory()
    folder = home.url.appendingPathComponent("Documents")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    environment = [
      "XDG_CONFIG_HOME": home.url.appendingPathComponent("config").path,
      "XDG_STATE_HOME": home.url.appendingPathComponent("state").path,
      "XDG_DATA_HOME": home.url.appendingPathComponent("data").path,
    ]  // XDG_RUNTIME_DIR is shared, as in one user's session: coordination reaches the test's presenters
    let login = try Executables.run(
      "quire",
      [
        "sync", "login", proxy.map { "http://127.0.0.1:\($0.port)" } ?? server.url.absoluteString,
        "--user", user, "--device", name,
      ] + login,
      environment: environment, input: "\(user)-password\n")
    guard login.status == 0 else { throw SyncServerProcess.Failure("login: \(login.stderr)") }
  }

  /// Starts the agent (with more `arguments` for `quire sync run`, such as `--download
  /// on-demand`) and waits until it has caught up once.
  func start(_ arguments: [String] = []) throws {
    let process = try HelperProcess(
      ["sync", "run", "--folder", folder.path] + arguments, executable: "quire",
      environment: environment)
    while let line = process.lines.nextLine() {
      if line.hasPrefix("Syncing ") {
        agent = process
        return
      }
    }
    throw SyncServerProcess.Failure("quire sync run exited before syncing")
  }

  /// The agent's state file.
  var stateFile: URL { SyncAgent.defaultStateFile(for: folder, environment: environment) }
  /// The device's sign-in.
  var settingsFile: URL { home.url.appendingPathComponent("config/quire/sync.json") }

  /// `quire sync pause` (which returns once the agent has stopped after the step in flight) or
  /// `resume` on this device.
  func pause(_ paused: Bool = true) throws {
    let run = try Executables.run(
      "quire", ["sync", paused ? "pause" : "resume"], environment: environment)
    guard run.status == 0 else { throw SyncServerProcess.Failure("pause: \(run.stderr)") }
  }

  /// `quire sync wait`: returns once this device's agent has synced everything that happened
  /// before the call (its folder's changes uploaded, the server's applied), and throws the
  /// command's message otherwise. An event, not a poll: the agent answers the request file.
  func sync(timeout: Int = 60) throws {
    let run = try quire(["sync", "wait", "--folder", folder.path, "--timeout", "\(timeout)"])
    guard run.status == 0 else {
      // What the agent says is left, for the failure's message.
      let status = try? quire(["sync", "status", "--folder", folder.path])
      throw SyncServerProcess.Failure(
        "quire sync wait on \(folder.path): \(run.stderr)\nquire sync status: "
          + "\(status.map { $0.stdout + $0.stderr } ?? "none")")
    }
  }

  /// SIGKILL: the agent gets no chance to finish anything.
  func kill() { agent?.kill() }

  func url(_ relative: String) -> URL { folder.appendingPathComponent(relative) }

  /// The contents of `relative` as text, or nil if absent.
  func text(_ relative: String) -> String? {
    FileManager.default.contents(atPath: url(relative).path).map {
      String(decoding: $0, as: UTF8.self)
    }
  }

  /// Whether `relative` is only a placeholder here (in the cloud, not downloaded).
  func isPlaceholder(_ relative: String) -> Bool {
    !exists(relative) && CloudPlaceholder.find(for: url(relative)) != nil
  }

  /// `quire ARGUMENTS` with this device's environment.
  func quire(_ arguments: [String]) throws -> Executables.Output {
    try Executables.run("quire", arguments, environment: environment)
  }

  func exists(_ relative: String) -> Bool {
    FileManager.default.fileExists(atPath: url(relative).path)
  }

  /// Writes `text` at `relative`, making folders.
  func write(_ text: String, to relative: String) throws {
    try FileManager.default.createDirectory(
      at: url(relative).deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url(relative))
  }

  /// The size of `relative`, or nil if absent.
  func size(_ relative: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: url(relative).path))?[.size] as? Int
  }

  /// `count` bytes of `relative` at `offset`, or nil.
  func read(_ relative: String, at offset: Int, count: Int) -> Data? {
    guard let handle = try? FileHandle(forReadingFrom: url(relative)) else { return nil }
    defer { try? handle.close() }
    try? handle.seek(toOffset: UInt64(offset))
    return try? handle.read(upToCount: count)
  }

  /// Makes a conflict: this device and `newer` both change `relative` while paused, this one's
  /// change a minute older; `newer` commits first, then this device resumes, so the server
  /// merges this device's change made on a stale revision (and this one's loses what
  /// conflicts).
  func editAtOnce(_ relative: String, _ text: String, with newer: SyncDevice, _ newerText: String)
    async throws
  {
    try pause()  // returns once the agent has stopped
    try newer.pause()
    try write(text, to: relative)
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: url(relative).path)
    try newer.write(newerText, to: relative)
    try newer.pause(false)
    try newer.sync()  // the newer edit is on the server
    try pause(false)
  }

  /// The agent's temporary files left anywhere in the folder (names starting `.quire-sync-`).
  func hiddenLeftovers() throws -> [String] {
    try FileManager.default.subpathsOfDirectory(atPath: folder.path).filter {
      ($0 as NSString).lastPathComponent.hasPrefix(".quire-sync-")
    }
  }

  /// The files the running agent holds open in the synced folder that have no name there (a
  /// download's spool): what `/proc/PID/fd` shows as "FOLDER/#INODE (deleted)".
  func unnamedOpenFiles() throws -> [String] {
    guard let agent else { return [] }
    let fds = "/proc/\(agent.process.processIdentifier)/fd"
    return try FileManager.default.contentsOfDirectory(atPath: fds).compactMap {
      let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(fds)/\($0)")
      guard let target, target.hasPrefix(folder.path + "/"), target.hasSuffix(" (deleted)")
      else { return nil }
      return target
    }
  }

  /// This device's `quire sync status --json`, decoded.
  func report() throws -> SyncReport {
    try JSONDecoder().decode(SyncReport.self, from: Data(try status().utf8))
  }

  /// `quire sync status --json` of this device.
  func status() throws -> String {
    try Executables.run(
      "quire", ["sync", "status", "--json", "--folder", folder.path], environment: environment
    ).stdout
  }
}

extension SyncDevice {
  /// Waits on each device in turn (``sync(timeout:)``): `sync(a, b)` after a change on A
  /// returns once B has it.
  static func sync(_ devices: SyncDevice...) throws {
    for device in devices { try device.sync() }
  }

  /// ``sync(_:)`` from a test on the main actor: the waits run on a thread of their own, since
  /// an agent's coordinated write may need an open document's presenter on the main actor.
  @MainActor
  static func syncOffMain(_ devices: SyncDevice...) async throws {
    try await onThread { for device in devices { try device.sync() } }
  }
}

extension SyncDevice {
  /// A server and alice's devices A and B, both agents running, started on a thread of their
  /// own: a test on the main actor, which every document test shares, must not wait there (see
  /// ``onThread(_:)``). The test keeps the server alive until it ends.
  static func startedPair() async throws -> (SyncServerProcess, SyncDevice, SyncDevice) {
    try await onThread {
      let server = try SyncServerProcess()
      let a = try SyncDevice("A", server: server)
      let b = try SyncDevice("B", server: server)
      try a.start()
      try b.start()
      return (server, a, b)
    }
  }
}

/// Polls `condition` until it holds or `seconds` pass (a wait for another process's effect on
/// disk, ended by the effect, bounded by the deadline); returns whether it held.
func eventually(
  seconds: Double = 60, isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if condition() { return true }
    try? await Task.sleep(for: .milliseconds(5))  // polling interval of a bounded wait
  }
  return condition()
}

/// Polls an async condition until it holds or `seconds` pass (a bounded wait for another
/// process's effect).
func eventuallyAsync(seconds: Double = 60, _ condition: () async -> Bool) async -> Bool {
  let deadline = ContinuousClock.now + .seconds(seconds)
  while ContinuousClock.now < deadline {
    if await condition() { return true }
    try? await Task.sleep(for: .milliseconds(20))  // polling interval of a bounded wait
  }
  return await condition()
}
