import ArgumentParser

/// `quire-bench <workload>`: each workload prints a table and, last, one `RESULT` line.
struct QuireBench: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quire-bench",
    abstract: "Measures Quire against the floor (bare syscalls) and a peer's approach.",
    subcommands: [PackageSaveBenchmark.self, PackageOpenBenchmark.self])
}

QuireBench.main()
