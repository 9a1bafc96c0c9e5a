import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Timing and reporting helpers shared by the workloads.
enum Measurement {
  /// Milliseconds taken by `body`, on the monotonic clock.
  static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000
      + Double(elapsed.components.attoseconds) / 1e15
  }

  /// Milliseconds taken by an async `body` on the main actor.
  @MainActor
  static func milliseconds(_ body: @MainActor () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000
      + Double(elapsed.components.attoseconds) / 1e15
  }

  /// Milliseconds since `start`, on the monotonic clock.
  static func milliseconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) * 1000
      + Double(elapsed.components.attoseconds) / 1e15
  }

  static func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
  }

  static func percentile(_ values: [Double], _ fraction: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
    return sorted[max(0, index)]
  }

  static func format(_ value: Double) -> String { String(format: "%.3f", value) }

  /// Prints an aligned table of rows.
  static func table(_ header: [String], _ rows: [[String]]) {
    let widths = header.indices.map { column in
      ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    func line(_ cells: [String]) -> String {
      zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        .joined(separator: "  ")
    }
    print(line(header))
    print(widths.map { String(repeating: "-", count: $0) }.joined(separator: "  "))
    rows.forEach { print(line($0)) }
  }

  /// Resets the peak resident set size of this process (Linux `clear_refs`).
  static func resetPeakMemory() {
    let fd = open("/proc/self/clear_refs", O_WRONLY)
    if fd >= 0 {
      _ = write(fd, "5", 1)
      close(fd)
    }
  }

  /// Peak resident set size of this process since the last reset (or of the process `pid`), in
  /// MiB.
  static func peakMemoryMiB(of pid: Int32? = nil) -> Double {
    let file = "/proc/\(pid.map(String.init) ?? "self")/status"
    guard let status = try? String(contentsOfFile: file, encoding: .utf8) else {
      return .nan
    }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
      let kib = line.split(separator: " ").compactMap { Double($0) }.first ?? .nan
      return kib / 1024
    }
    return .nan
  }

  /// A fresh scratch folder for a workload, under `base` or the temporary folder.
  static func scratch(_ base: String?, _ name: String) throws -> URL {
    let root = URL(fileURLWithPath: base ?? NSTemporaryDirectory())
      .appendingPathComponent("quire-bench-\(name)-\(getpid())")
    try? FileManager.default.removeItem(at: root)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    return root
  }
}
