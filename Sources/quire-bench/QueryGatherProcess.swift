import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// `quire-bench query-gather SCOPE [--index FILE]`: one start of a program with a query, as
/// after a restart. Opens the index, runs the query until it has gathered, prints
/// `GATHER <ms> <items>`, waits for the index to be written, and exits (not waiting for the
/// reconcile, as a program closed right after showing its list would).
struct QueryGather: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "query-gather", abstract: "The other process of `query`.",
    shouldDisplay: false)

  @Argument var scope: String
  @Option var index: String?

  func run() async throws {
    let registry = TypeRegistry()
    try registry.register(SampleTypes.declarations)
    let started = ContinuousClock.now
    let index = try self.index.map { try DocumentIndex(url: URL(fileURLWithPath: $0)) }
    let query = DocumentQuery(
      scopes: [URL(fileURLWithPath: scope)], registry: registry, index: index)
    var count = 0
    for await results in query.results() where results.phase == .gathered {
      count = results.items.count
      break
    }
    let elapsed = ContinuousClock.now - started
    let milliseconds =
      Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    await index?.flush()
    print("GATHER \(milliseconds) \(count)")
    Glibc.exit(0)
  }

  /// Runs one such start in a new process; its gather time and item count.
  static func measure(scope: URL, index: URL?) throws -> (milliseconds: Double, items: Int) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    process.arguments = ["query-gather", scope.path] + (index.map { ["--index", $0.path] } ?? [])
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let fields = String(decoding: data, as: UTF8.self).split(separator: " ")
    guard fields.count == 3, fields[0] == "GATHER", let milliseconds = Double(fields[1]),
      let items = Int(fields[2].trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw RawFiles.Failure(description: "query-gather failed: \(fields)") }
    return (milliseconds, items)
  }
}
