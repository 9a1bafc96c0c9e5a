import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's `unison` keeping two folders the same with `-repeat 1` (a sync every second; the
/// `watch` mode needs `unison-fsmonitor`, which Debian does not ship): the peer for sync latency.
final class UnisonPeer {
  let a: URL
  let b: URL
  private let process: Process

  /// The two folders under `scratch`, and unison running on them, after a probe file has gone
  /// from A to B.
  init(scratch: URL) throws {
    a = scratch.appendingPathComponent("unison-A")
    b = scratch.appendingPathComponent("unison-B")
    let archives = scratch.appendingPathComponent("unison-archives")
    for folder in [a, b, archives] {
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }
    let probe = Data("probe".utf8)
    try probe.write(to: a.appendingPathComponent("probe.txt"))
    process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/unison")
    process.arguments = [
      a.path, b.path, "-batch", "-auto", "-silent", "-repeat", "1", "-confirmbigdel=false",
    ]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "UNISON": archives.path
    ]) { $1 }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    let target = b.appendingPathComponent("probe.txt")
    guard
      SyncRig.waitFor(
        seconds: 60, every: .milliseconds(10),
        {
          FileManager.default.contents(atPath: target.path) == probe
        })
    else {
      stop()
      throw RawFiles.Failure(description: "unison never synced the two folders")
    }
  }

  func stop() {
    if process.isRunning {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Whether unison is installed (scripts/bench installs it).
  static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/unison") }
}
