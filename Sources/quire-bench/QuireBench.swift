import ArgumentParser

/// `quire-bench <workload>`: each workload prints a table and, last, one `RESULT` line.
@main
struct QuireBench: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "quire-bench",
    abstract: "Measures Quire against the floor (bare syscalls) and a peer's approach.",
    subcommands: [
      PackageSaveBenchmark.self, PackageOpenBenchmark.self, AlbumOpenBenchmark.self,
      DocumentSaveBenchmark.self, MonitorBenchmark.self, CoordinationBenchmark.self,
      CoordinationWriter.self, QueryBenchmark.self, QueryGather.self, AppListBenchmark.self,
      AppUIBenchmark.self,
      PresentersBenchmark.self, ArchiveBenchmark.self, SyncLatencyBenchmark.self,
      SyncBytesBenchmark.self, SyncLargeEditBenchmark.self, SyncInitialBenchmark.self,
      SyncRenameBenchmark.self,
      SyncOpenCloudBenchmark.self, SyncBigFileBenchmark.self, ServerLoadBenchmark.self,
      ServerAbuseBenchmark.self,
      WebDAVBenchmark.self,
    ])
}
