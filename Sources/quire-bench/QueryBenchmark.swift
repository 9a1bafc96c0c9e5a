import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// A DocumentQuery over N documents (flat files and small packages in nested folders): the first
/// gather with no index, with an empty index and with a warm index after a restart, and how soon another process's coordinated write reaches the live
/// query — beside `find SCOPE -name '*.mydoc'` over the same tree.
struct QueryBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "query",
    abstract: "Time DocumentQuery's gather and live updates, beside find(1).")

  @Option(help: "Documents in the tree.") var documents = 100_000
  @Option(help: "Coordinated writes by another process to time.") var writes = 500
  @Option(help: "Runs of each gather (the median is reported).") var runs = 3
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  func run() async throws {
    let root = try Measurement.scratch(directory, "query")
    defer { try? RawFiles.removeTree(root.path) }
    try makeTree(root)
    let registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)

    var findTimes: [Double] = []
    for _ in 0..<runs {
      findTimes.append(try Measurement.milliseconds { try runFind(root) })
    }
    let indexURL = root.deletingLastPathComponent()
      .appendingPathComponent(root.lastPathComponent + "-index.sqlite")
    defer { removeIndex(indexURL) }
    var count = 0
    // Each gather is a new process, as after a restart.
    var walkTimes: [Double] = []  // no index: every start walks the tree
    var coldTimes: [Double] = []  // an empty index: the walk; the index is written after
    var warmTimes: [Double] = []  // the index of the run before
    for _ in 0..<runs {
      walkTimes.append(try QueryGather.measure(scope: root, index: nil).milliseconds)
      removeIndex(indexURL)
      coldTimes.append(try QueryGather.measure(scope: root, index: indexURL).milliseconds)
      let warm = try QueryGather.measure(scope: root, index: indexURL)
      warmTimes.append(warm.milliseconds)
      count = warm.items
    }
    let walk = Measurement.median(walkTimes)
    let cold = Measurement.median(coldTimes)
    let warm = Measurement.median(warmTimes)
    let updates = try await updateDelays(root: root, registry: registry)

    Measurement.table(
      ["\(documents) documents (\(count) items with folders)", "ms"],
      [
        ["find -name '*.mydoc' (median)", Measurement.format(Measurement.median(findTimes))],
        ["DocumentQuery gather without an index (median)", Measurement.format(walk)],
        ["DocumentQuery gather, empty index (median)", Measurement.format(cold)],
        ["DocumentQuery gather after a restart, warm index (median)", Measurement.format(warm)],
        [
          "update after another process's write, p50",
          Measurement.format(Measurement.median(updates)),
        ],
        [
          "update after another process's write, p99",
          Measurement.format(Measurement.percentile(updates, 0.99)),
        ],
      ])
    print(
      "RESULT query documents=\(documents) cold_gather_ms=\(Measurement.format(cold)) "
        + "warm_gather_ms=\(Measurement.format(warm)) "
        + "find_ms=\(Measurement.format(Measurement.median(findTimes))) "
        + "update_p50_ms=\(Measurement.format(Measurement.median(updates))) "
        + "update_p99_ms=\(Measurement.format(Measurement.percentile(updates, 0.99)))")
  }

  /// 100 documents per folder, folders 10 to a parent; every third document is a package of two
  /// members, the rest text files.
  private func makeTree(_ root: URL) throws {
    for index in 0..<documents {
      let folder = root.path + "/f\(index / 1000)/g\(index / 100)"
      if index % 100 == 0 {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
      }
      if index % 3 == 0 {
        let package = folder + "/Doc \(index).mydoc"
        try RawFiles.check(mkdir(package, 0o755), "mkdir")
        try RawFiles.create(package + "/text.txt", Array("text \(index)".utf8), sync: false)
        try RawFiles.create(package + "/image.png", [0x89, 0x50], sync: false)
      } else {
        try RawFiles.create(folder + "/Note \(index).txt", Array("note \(index)".utf8), sync: false)
      }
    }
  }

  private func runFind(_ root: URL) throws {
    let find = Process()
    find.executableURL = URL(fileURLWithPath: "/usr/bin/find")
    find.arguments = [root.path, "-name", "*.mydoc"]
    find.standardOutput = FileHandle.nullDevice
    try find.run()
    find.waitUntilExit()
  }

  /// Paced coordinated writes by a child process to one document of the tree; the delay until
  /// the live query reports it changed.
  private func updateDelays(root: URL, registry: TypeRegistry) async throws -> [Double] {
    let target = root.appendingPathComponent("f0/g0/Note 1.txt")
    let query = DocumentQuery(scopes: [root], registry: registry, index: nil)
    var iterator = query.results().makeAsyncIterator()
    while let results = await iterator.next(), results.phase != .gathered {}
    let writer = try CoordinatedWriterProcess(writing: target)
    var delays: [Double] = []
    for version in 0..<writes {
      let finished = try writer.write(version)
      while let results = await iterator.next() {
        if results.changed.contains(where: {
          $0.path == target.path && $0.size == Int64("\(version)".utf8.count)
        })
          || results.added.contains(where: { $0.path == target.path })
        {
          delays.append(CoordinationBenchmark.now() - finished)
          break
        }
      }
    }
    return delays
  }

  private func removeIndex(_ url: URL) {
    for suffix in ["", "-wal", "-shm"] { unlink(url.path + suffix) }
  }

  private static func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
  }
}
