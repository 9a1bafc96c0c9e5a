import ArgumentParser
import Foundation

/// How soon a small edit of a text document on device A is in device B's file, through a
/// `quire server` on loopback: paced edits, each timed from A's save to B's file holding it.
struct SyncLatencyBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "sync-latency",
    abstract: "Time a small edit from device A's save to device B's file.")

  @Option(help: "Edits to time.") var edits = 200
  @Option(help: "Folder for the server's and devices' files (default: the temporary folder).")
  var directory: String?

  func run() throws {
    let scratch = try Measurement.scratch(directory, "sync-latency")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let rig = try SyncRig(scratch: scratch)
    defer { rig.stop() }
    let source = rig.a.appendingPathComponent("Note.txt")
    let target = rig.b.appendingPathComponent("Note.txt")
    try SyncRig.save("edit 0", to: source)
    guard
      SyncRig.waitFor({ FileManager.default.contents(atPath: target.path) == Data("edit 0".utf8) })
    else { throw RawFiles.Failure(description: "the first edit never reached device B") }
    var latencies: [Double] = []
    for edit in 1...edits {
      let text = Data("edit \(edit)".utf8)
      var arrived = false
      let milliseconds = try Measurement.milliseconds {
        try text.write(to: source, options: .atomic)
        arrived = SyncRig.waitFor(seconds: 10) {
          FileManager.default.contents(atPath: target.path) == text
        }
      }
      guard arrived else {
        throw RawFiles.Failure(description: "edit \(edit) never reached device B")
      }
      latencies.append(milliseconds)
    }
    let p50 = Measurement.percentile(latencies, 0.5)
    let p99 = Measurement.percentile(latencies, 0.99)
    Measurement.table(
      ["engine", "p50 ms", "p99 ms"],
      [
        ["Quire Sync", Measurement.format(p50), Measurement.format(p99)],
        ["Syncthing", "not measured", ""], ["Unison", "not measured", ""],
      ])
    print(
      "RESULT sync-latency edits=\(edits) quire_p50_ms=\(Measurement.format(p50)) quire_p99_ms=\(Measurement.format(p99))"
    )
  }
}
