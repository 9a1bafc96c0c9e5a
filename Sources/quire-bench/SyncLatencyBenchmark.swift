import ArgumentParser
import Foundation

/// How soon a small edit of a text document on device A is in device B's file: through a
/// `quire server` on loopback, and through the peers — Syncthing with its default watcher delay
/// and with `fsWatcherDelayS=1`, and Unison with `-repeat 1` — each edit timed from A's save to
/// B's file holding it, paced (the next edit once the last arrived).
struct SyncLatencyBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-latency",
    abstract:
      "Time a small edit from device A's save to device B's file, beside Syncthing and Unison.")

  @Option(help: "Edits to time through Quire Sync.") var edits = 200
  @Option(help: "Edits to time through each peer (they take seconds each).") var peerEdits = 10
  @Option(
    help:
      "Files of 4 KiB each engine's drive holds, synced before the edits (an edit's cost must not grow with them)."
  )
  var driveFiles = 0
  @Option(help: "Folder for the server's and devices' files (default: the temporary folder).")
  var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-latency")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let rig = try SyncRig(scratch: scratch.appendingPathComponent("quire"))
    try fillDrive(rig.a, until: rig.b, scratch: scratch)
    let quire = try Self.latencies(from: rig.a, to: rig.b, edits: edits, timeout: 10)
    rig.stop()
    var rows = [Self.row("Quire Sync", quire)]
    var result =
      "RESULT sync-latency edits=\(edits) quire_p50_ms=\(Measurement.format(Measurement.percentile(quire, 0.5))) quire_p99_ms=\(Measurement.format(Measurement.percentile(quire, 0.99)))"
    if SyncthingPeer.isInstalled {
      for (name, key, delay) in [
        ("Syncthing (fsWatcherDelayS=10)", "syncthing", 10),
        ("Syncthing (fsWatcherDelayS=1)", "syncthing_fast", 1),
      ] {
        let peer = try SyncthingPeer(
          scratch: scratch.appendingPathComponent(key), watcherDelay: delay)
        defer { peer.stop() }
        try fillDrive(peer.a, until: peer.b, scratch: scratch)
        let times = try Self.latencies(from: peer.a, to: peer.b, edits: peerEdits, timeout: 60)
        rows.append(Self.row(name, times))
        result += " \(key)_p50_ms=\(Measurement.format(Measurement.percentile(times, 0.5)))"
      }
    }
    if UnisonPeer.isInstalled {
      let peer = try UnisonPeer(scratch: scratch.appendingPathComponent("unison"))
      defer { peer.stop() }
      try fillDrive(peer.a, until: peer.b, scratch: scratch)
      let times = try Self.latencies(from: peer.a, to: peer.b, edits: peerEdits, timeout: 60)
      rows.append(Self.row("Unison (-repeat 1)", times))
      result += " unison_p50_ms=\(Measurement.format(Measurement.percentile(times, 0.5)))"
    }
    Measurement.table(["engine", "edits", "p50 ms", "p99 ms"], rows)
    print(result + " peer_edits=\(peerEdits) drive_files=\(driveFiles)")
  }

  /// Puts ``driveFiles`` files in `source`'s drive (made beside it, then moved in) and waits
  /// until `target` holds them all.
  private func fillDrive(_ source: URL, until target: URL, scratch: URL) throws {
    guard driveFiles > 0 else { return }
    let staging = scratch.appendingPathComponent("staging-\(UUID().uuidString)")
    try SyncInitialBenchmark.makeFiles(driveFiles, in: staging)
    let seconds = try SyncInitialBenchmark.time(until: target, files: driveFiles) {
      try FileManager.default.moveItem(at: staging, to: source.appendingPathComponent("Files"))
    }
    print("\(driveFiles) files reached device B in \(Measurement.format(seconds / 1000)) s")
  }

  /// Each edit's milliseconds from the save in `source` to `target` holding it.
  static func latencies(from source: URL, to target: URL, edits: Int, timeout: Double) throws
    -> [Double]
  {
    let from = source.appendingPathComponent("Note.txt")
    let to = target.appendingPathComponent("Note.txt")
    try SyncRig.save("edit 0", to: from)
    guard
      SyncRig.waitFor(
        seconds: 120, { FileManager.default.contents(atPath: to.path) == Data("edit 0".utf8) })
    else { throw RawFiles.Failure(description: "the first edit never reached device B") }
    var latencies: [Double] = []
    for edit in 1...edits {
      let text = Data("edit \(edit)".utf8)
      var arrived = false
      let milliseconds = try Measurement.milliseconds {
        try text.write(to: from, options: .atomic)
        arrived = SyncRig.waitFor(seconds: timeout) {
          FileManager.default.contents(atPath: to.path) == text
        }
      }
      guard arrived else {
        throw RawFiles.Failure(description: "edit \(edit) never reached device B")
      }
      latencies.append(milliseconds)
    }
    return latencies
  }

  private static func row(_ name: String, _ times: [Double]) -> [String] {
    [
      name, "\(times.count)", Measurement.format(Measurement.percentile(times, 0.5)),
      Measurement.format(Measurement.percentile(times, 0.99)),
    ]
  }
}
