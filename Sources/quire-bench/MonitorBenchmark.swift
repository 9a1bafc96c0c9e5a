import ArgumentParser
import Foundation
import Quire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// How soon a change reaches a FileMonitor, beside `inotifywait` (Debian's inotify-tools)
/// watching the same folder: the delay from a write being closed to each being told of it, over
/// paced writes (one at a time, so the figure is latency, not queueing).
struct MonitorBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "monitor",
    abstract: "Time the delay from a file write to FileMonitor's event, beside inotifywait.")

  @Option(help: "Writes to time.") var events = 1000
  @Option(help: "Folder to write in (default: the temporary folder).") var directory: String?

  /// When each side heard of each file, by file name.
  final class Arrivals: Sendable {
    let times = Mutex<[String: ContinuousClock.Instant]>([:])
    func record(_ name: String) {
      let now = ContinuousClock.now
      times.withLock { if $0[name] == nil { $0[name] = now } }
    }
    func has(_ name: String) -> Bool { times.withLock { $0[name] != nil } }
  }

  func run() async throws {
    guard
      let inotifywait = ["/usr/bin/inotifywait", "/bin/inotifywait"].first(
        where: FileManager.default.isExecutableFile)
    else {
      throw RawFiles.Failure(description: "inotifywait is missing: apt-get install inotify-tools")
    }
    let root = try Measurement.scratch(directory, "monitor")
    defer { try? FileManager.default.removeItem(at: root) }

    let quire = Arrivals()
    let peer = Arrivals()
    let watcher = Task {
      for try await event in FileMonitor(watching: root)
      where event.kind == .modified || event.kind == .created {
        quire.record((event.path as NSString).lastPathComponent)
      }
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: inotifywait)
    process.arguments = ["-m", "-q", "-e", "close_write", "--format", "%f", root.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    // SIGKILL: a child spawned from a concurrency thread inherits that thread's blocked SIGTERM.
    defer {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
    let reader = Thread {
      var buffer = Data()
      while true {
        let chunk = pipe.fileHandleForReading.availableData
        if chunk.isEmpty { return }
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: 0x0A) {
          peer.record(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
          buffer.removeSubrange(buffer.startIndex...newline)
        }
      }
    }
    reader.start()
    try await waitUntilBothWatch(root, quire, peer)

    var quireDelays: [Double] = []
    var peerDelays: [Double] = []
    for index in 0..<events {
      let name = "event-\(index).txt"
      let written = ContinuousClock.now  // timed from the start of the write, for both watchers
      try RawFiles.create(
        root.appendingPathComponent(name).path, Array("\(index)".utf8), sync: false)
      let deadline = written + .seconds(5)
      while !(quire.has(name) && peer.has(name)) && ContinuousClock.now < deadline {
        await Task.yield()
      }
      let (heardByQuire, heardByPeer) = (
        quire.times.withLock { $0[name] }, peer.times.withLock { $0[name] }
      )
      guard let heardByQuire, let heardByPeer else {
        throw RawFiles.Failure(description: "\(name) was not reported within 5 s")
      }
      quireDelays.append(Self.milliseconds(heardByQuire - written))
      peerDelays.append(Self.milliseconds(heardByPeer - written))
    }
    watcher.cancel()
    let row = { (label: String, values: [Double]) in
      [
        label, Measurement.format(Measurement.median(values)),
        Measurement.format(Measurement.percentile(values, 0.99)),
      ]
    }
    Measurement.table(
      ["watcher", "p50 ms", "p99 ms"],
      [
        row("Quire FileMonitor (1 ms quiet window)", quireDelays),
        row("inotifywait -m", peerDelays),
      ])
    print(
      "RESULT monitor events=\(events) quire_p50_ms=\(Measurement.format(Measurement.median(quireDelays))) "
        + "quire_p99_ms=\(Measurement.format(Measurement.percentile(quireDelays, 0.99))) "
        + "inotifywait_p50_ms=\(Measurement.format(Measurement.median(peerDelays)))")
  }

  /// Writes a probe file until both watchers report it, so timing starts with both watching.
  private func waitUntilBothWatch(_ root: URL, _ quire: Arrivals, _ peer: Arrivals) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    var attempt = 0
    while ContinuousClock.now < deadline {
      let name = "probe-\(attempt).txt"
      try RawFiles.create(root.appendingPathComponent(name).path, [1], sync: false)
      let probeDeadline = ContinuousClock.now + .milliseconds(200)
      while ContinuousClock.now < probeDeadline {
        if quire.has(name) && peer.has(name) { return }
        await Task.yield()
      }
      attempt += 1
    }
    throw RawFiles.Failure(description: "the watchers did not start within 10 s")
  }

  private static func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
  }
}
