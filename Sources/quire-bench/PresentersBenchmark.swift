import ArgumentParser
import Foundation
import Quire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Many presenters in one process: `--count` files each with its own presenter, then paced
/// uncoordinated writes (as an editor or `cp` makes) to random files, timed from the write's
/// `close` to that file's presenter being told. Reports how many inotify instances and watches
/// the process holds at that scale (read from /proc/self/fdinfo, the kernel's own account).
struct PresentersBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "presenters",
    abstract: "Inotify instances, watches and notify latency with many presenters in a process.")

  @Option(help: "Presenters (one per file).") var count = 500
  @Option(help: "Writes to time.") var writes = 1000
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  /// A presenter that notes when it first heard of each version its file holds.
  final class TimingPresenter: FilePresenter {
    let url: URL
    let heard = Mutex<[Int: Double]>([:])
    init(_ url: URL) { self.url = url }
    var presentedItemURL: URL? { url }
    func presentedItemDidChange() async {
      let now = CoordinationBenchmark.now()
      guard let text = try? String(contentsOf: url, encoding: .utf8), let version = Int(text)
      else { return }
      heard.withLock { if $0[version] == nil { $0[version] = now } }
    }
  }

  func run() async throws {
    let root = try Measurement.scratch(directory, "presenters")
    defer { try? FileManager.default.removeItem(at: root) }
    var presenters: [TimingPresenter] = []
    for index in 0..<count {
      let file = root.appendingPathComponent("file-\(index).txt")
      _ = try CoordinationBenchmark.writeFile(creating: file.path, Array("-1".utf8))
      let presenter = TimingPresenter(file)
      try FileCoordinator.addFilePresenter(presenter)
      presenters.append(presenter)
    }
    defer { for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) } }
    // Every presenter's watch starts in the background: a probe write each, until all hear.
    var version = 0
    for presenter in presenters {
      var heard = false
      let deadline = ContinuousClock.now + .seconds(20)
      while !heard && ContinuousClock.now < deadline {
        version += 1
        _ = try CoordinationBenchmark.writeFile(presenter.url.path, Array("\(version)".utf8))
        let probeDeadline = ContinuousClock.now + .milliseconds(200)
        while !heard && ContinuousClock.now < probeDeadline {
          heard = presenter.heard.withLock { $0[version] != nil }
          if !heard { await Task.yield() }
        }
      }
      guard heard else {
        throw RawFiles.Failure(description: "\(presenter.url.path)'s presenter never heard a write")
      }
    }
    let (instances, watches) = Self.inotifyUse()
    var delays: [Double] = []
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<writes {
      version += 1
      let presenter = presenters.randomElement(using: &generator)!
      let closed = try CoordinationBenchmark.writeFile(
        presenter.url.path, Array("\(version)".utf8))
      let deadline = ContinuousClock.now + .seconds(5)
      var heard: Double?
      while heard == nil && ContinuousClock.now < deadline {
        heard = presenter.heard.withLock { $0[version] }
        if heard == nil { await Task.yield() }
      }
      guard let heard else {
        throw RawFiles.Failure(description: "version \(version) was not heard within 5 s")
      }
      delays.append(heard - closed)
    }
    let p50 = Measurement.median(delays)
    let p99 = Measurement.percentile(delays, 0.99)
    Measurement.table(
      ["\(count) presenters in one process", "value"],
      [
        ["inotify instances", "\(instances)"], ["inotify watches", "\(watches)"],
        ["told after an uncoordinated write, p50 ms", Measurement.format(p50)],
        ["told after an uncoordinated write, p99 ms", Measurement.format(p99)],
      ])
    print(
      "RESULT presenters count=\(count) inotify_instances=\(instances) watches=\(watches) "
        + "notify_p50_ms=\(Measurement.format(p50)) notify_p99_ms=\(Measurement.format(p99))")
  }

  /// The process's inotify instances and the watches they hold, from /proc/self.
  static func inotifyUse() -> (instances: Int, watches: Int) {
    var instances = 0
    var watches = 0
    for fd in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
      guard
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd))
          == "anon_inode:inotify"
      else { continue }
      instances += 1
      let info = (try? String(contentsOfFile: "/proc/self/fdinfo/" + fd, encoding: .utf8)) ?? ""
      watches += info.split(separator: "\n").filter { $0.hasPrefix("inotify wd:") }.count
    }
    return (instances, watches)
  }
}
