import ArgumentParser
import Foundation
import Quire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The cost of coordination: a coordinated read and write of a 4 KiB file against the same bare
/// system calls, and the delay from another process's coordinated write finishing to this
/// process's presenter being told, beside `inotifywait` watching the same writes.
struct CoordinationBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "coordination",
    abstract: "Time coordinated reads and writes, and how soon presenters hear of other writers.")

  @Option(help: "Operations per run for the overheads.") var operations = 500
  @Option(help: "Runs of each kind, bare and coordinated alternating (medians are reported).")
  var runs = 21
  @Option(help: "Writes by the other process to time.") var events = 1000
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  func run() async throws {
    guard
      let inotifywait = ["/usr/bin/inotifywait", "/bin/inotifywait"].first(
        where: FileManager.default.isExecutableFile)
    else {
      throw RawFiles.Failure(description: "inotifywait is missing: apt-get install inotify-tools")
    }
    let root = try Measurement.scratch(directory, "coordination")
    defer { try? FileManager.default.removeItem(at: root) }
    let file = root.appendingPathComponent("document.txt")
    let page = [UInt8](repeating: 0x61, count: 4096)
    try RawFiles.create(file.path, page, sync: false)

    let coordinator = FileCoordinator()
    let read = try paired {
      try Self.readFile(file.path)
    } coordinated: {
      try coordinator.coordinate(readingItemAt: file) { try Self.readFile($0.path) }
    }
    let write = try paired {
      _ = try Self.writeFile(file.path, page)
    } coordinated: {
      try coordinator.coordinate(writingItemAt: file) { _ = try Self.writeFile($0.path, page) }
    }
    let (notify, peer) = try await notifyDelays(file: file, inotifywait: inotifywait)

    let us = { (value: Double) in Measurement.format(value) }
    Measurement.table(
      ["4 KiB file", "bare µs", "coordinated µs", "overhead µs"],
      [
        ["read", us(read.bare), us(read.coordinated), us(read.overhead)],
        ["write", us(write.bare), us(write.coordinated), us(write.overhead)],
      ])
    Measurement.table(
      ["another process writes; told after", "p50 ms", "p99 ms"],
      [
        [
          "Quire presenter", Measurement.format(Measurement.median(notify)),
          Measurement.format(Measurement.percentile(notify, 0.99)),
        ],
        [
          "inotifywait -m", Measurement.format(Measurement.median(peer)),
          Measurement.format(Measurement.percentile(peer, 0.99)),
        ],
      ])
    print(
      "RESULT coordination read_overhead_us=\(us(read.overhead)) "
        + "write_overhead_us=\(us(write.overhead)) "
        + "notify_p50_ms=\(Measurement.format(Measurement.median(notify))) "
        + "notify_p99_ms=\(Measurement.format(Measurement.percentile(notify, 0.99))) "
        + "inotifywait_p50_ms=\(Measurement.format(Measurement.median(peer)))")
  }

  /// The mean time of one operation, bare and coordinated, and the coordination's overhead, in
  /// µs: medians over runs. Bare and coordinated runs alternate, so both meet the same disk (a
  /// rewritten file's writeback, which a truncation waits for, varies from one second to the
  /// next), and the overhead is the median of each pair's difference.
  private func paired(
    _ bare: () throws -> Void, coordinated: () throws -> Void
  ) throws -> (bare: Double, coordinated: Double, overhead: Double) {
    for _ in 0..<100 {  // warm up
      try bare()
      try coordinated()
    }
    let mean = { (body: () throws -> Void) throws -> Double in
      let total = try Measurement.milliseconds { for _ in 0..<operations { try body() } }
      return total * 1000 / Double(operations)
    }
    var (bares, coordinateds, overheads) = ([Double](), [Double](), [Double]())
    for _ in 0..<runs {
      let (plain, coordinatedMean) = (try mean(bare), try mean(coordinated))
      bares.append(plain)
      coordinateds.append(coordinatedMean)
      overheads.append(coordinatedMean - plain)
    }
    return (
      Measurement.median(bares), Measurement.median(coordinateds), Measurement.median(overheads)
    )
  }

  static func readFile(_ path: String) throws {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    try RawFiles.check(fd, "open")
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 8192)
    _ = read(fd, &buffer, buffer.count)
  }

  /// Writes `bytes` over the file at `path` and returns the moment just before its `close`: the
  /// `close` is what queues inotify's `close_write`, so both listeners are timed from it.
  @discardableResult
  static func writeFile(_ path: String, _ bytes: [UInt8]) throws -> Double {
    try writeFile(path, bytes, flags: O_WRONLY | O_TRUNC | O_CLOEXEC)
  }

  /// ``writeFile(_:_:)`` for a file that may not exist yet.
  static func writeFile(creating path: String, _ bytes: [UInt8]) throws -> Double {
    try writeFile(path, bytes, flags: O_WRONLY | O_TRUNC | O_CREAT | O_CLOEXEC)
  }

  private static func writeFile(_ path: String, _ bytes: [UInt8], flags: Int32) throws -> Double {
    let fd = open(path, flags, 0o644)
    try RawFiles.check(fd, "open")
    _ = write(fd, bytes, bytes.count)
    let closing = now()
    close(fd)
    return closing
  }

  /// The monotonic clock, shared by every process of the machine, in ms.
  static func now() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
  }
}
