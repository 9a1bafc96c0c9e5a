import ArgumentParser
import Foundation
import Quire

/// Opening an N-member package lazily with Quire against a bare directory walk (readdir and
/// lstat of every entry), and the peak memory of the open.
struct PackageOpenBenchmark: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "package-open",
    abstract: "Time a lazy open of an N-member package against a raw directory walk.")

  @Option(help: "Members in the package.") var members = 100_000
  @Option(help: "Runs per approach (the median is reported).") var runs = 5
  @Option(help: "Folder to build the package in (default: the temporary folder).")
  var directory: String?
  @Option(
    help: "After the measured runs, repeat only Quire's open this many times (for profiling).")
  var profileOpens = 0

  func run() throws {
    let root = try Measurement.scratch(directory, "open")
    defer { try? FileManager.default.removeItem(at: root) }
    let package = root.appendingPathComponent("Bench.album")
    print("building a package of \(members) members of 4 KiB…")
    _ = try RawFiles.makePackage(package.path, members: members, size: 4096)
    _ = try RawFiles.walk(package.path)  // the same warm cache for both

    var quire: [Double] = []
    var walk: [Double] = []
    var peak = 0.0
    for _ in 0..<runs {
      var count = 0
      walk.append(try Measurement.milliseconds { count = try RawFiles.walk(package.path) })
      Measurement.resetPeakMemory()
      var wrapper: FileWrapper?
      quire.append(try Measurement.milliseconds { wrapper = try FileWrapper(url: package) })
      peak = max(peak, Measurement.peakMemoryMiB())
      guard wrapper?.fileWrappers?.count == count else {
        throw RawFiles.Failure(
          description: "Quire saw \(wrapper?.fileWrappers?.count ?? 0) members, the walk \(count)")
      }
      wrapper = nil
    }
    if profileOpens > 0 {
      let start = ProcessInfo.processInfo.systemUptime
      for _ in 0..<profileOpens { _ = try FileWrapper(url: package) }
      print(
        "profiled opens: \((ProcessInfo.processInfo.systemUptime - start) * 1000 / Double(profileOpens)) ms each"
      )
    }
    Measurement.table(
      ["approach", "median ms", "min ms"],
      [
        [
          "Quire lazy open", Measurement.format(Measurement.median(quire)),
          Measurement.format(quire.min()!),
        ],
        [
          "readdir + lstat walk", Measurement.format(Measurement.median(walk)),
          Measurement.format(walk.min()!),
        ],
      ])
    print("peak resident memory during the open: \(Measurement.format(peak)) MiB")
    print(
      "RESULT package-open members=\(members) quire_ms=\(Measurement.format(Measurement.median(quire))) "
        + "walk_ms=\(Measurement.format(Measurement.median(walk))) rss_mib=\(Measurement.format(peak))"
    )
  }
}
