import ArgumentParser
import Foundation
import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// A package of many small members through an archive and back: Quire's export and import
/// beside Info-ZIP's `zip -r` and `unzip` (Debian's zip and unzip) on the same package, in the
/// same run. Each figure is the median of `--runs` runs; every timed step starts from a flushed
/// file system. Quire's import ends with `syncfs` (the imported document is durable before it
/// appears), which unzip does not do; that is part of Quire's figure.
struct ArchiveBenchmark: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "archive",
    abstract: "Export and import a many-member package, beside zip -r and unzip.")

  @Option(help: "Members of the package (4 KiB of text each).") var members = 100_000
  @Option(help: "Timed runs of each step.") var runs = 3
  @Option(help: "Folder to work in (default: the temporary folder).") var directory: String?

  func run() async throws {
    guard let zip = Self.tool("zip"), let unzip = Self.tool("unzip") else {
      throw RawFiles.Failure(description: "zip and unzip are missing: apt-get install zip unzip")
    }
    let root = try Measurement.scratch(directory, "archive")
    defer { try? FileManager.default.removeItem(at: root) }
    let package = root.appendingPathComponent("Bench.mydoc")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    for index in 0..<members {
      let line = "Member \(index) of the benchmark package, a line of plain text.\n"
      let text = String(repeating: line, count: 4096 / line.utf8.count + 1).prefix(4096)
      try RawFiles.create(
        package.appendingPathComponent("member-\(index).txt").path, Array(text.utf8), sync: false)
    }
    let quireArchive = root.appendingPathComponent("quire.zip")
    let peerArchive = root.appendingPathComponent("peer.zip")
    let quireImports = root.appendingPathComponent("quire-import")
    let peerImports = root.appendingPathComponent("peer-import")
    var export: [Double] = []
    var zipped: [Double] = []
    var imported: [Double] = []
    var unzipped: [Double] = []
    for run in 0..<runs {
      for url in [quireArchive, peerArchive, quireImports, peerImports] {
        try? FileManager.default.removeItem(at: url)
      }
      for url in [quireImports, peerImports] {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      }
      // Every other run the peer goes first, so neither side always follows the deletions
      // (and the discards they cause on this disk) of the run before.
      let quireFirst = run % 2 == 0
      for step in quireFirst ? [0, 1, 2, 3] : [1, 0, 3, 2] {
        sync()
        switch step {
        case 0:
          export.append(
            try Measurement.milliseconds { try PackageArchive.export(package, to: quireArchive) })
        case 1:
          zipped.append(
            try Measurement.milliseconds {
              try Self.run(zip, ["-q", "-r", peerArchive.path, "Bench.mydoc"], in: root)
            })
        case 2:
          imported.append(
            try Measurement.milliseconds {
              try PackageArchive.importArchive(quireArchive, into: quireImports)
            })
        default:
          unzipped.append(
            try Measurement.milliseconds {
              try Self.run(unzip, ["-q", peerArchive.path, "-d", peerImports.path], in: root)
            })
        }
      }
    }
    let row = { (label: String, values: [Double]) in
      [label, Measurement.format(Measurement.median(values))]
    }
    Measurement.table(
      ["\(members) members of 4 KiB", "median ms"],
      [
        row("Quire export (streaming writer, deflate)", export), row("zip -r", zipped),
        row("Quire import (checked, staged, syncfs)", imported), row("unzip", unzipped),
      ])
    print(
      "RESULT archive members=\(members) export_ms=\(Measurement.format(Measurement.median(export))) "
        + "zip_ms=\(Measurement.format(Measurement.median(zipped))) "
        + "import_ms=\(Measurement.format(Measurement.median(imported))) "
        + "unzip_ms=\(Measurement.format(Measurement.median(unzipped)))")
  }

  static func tool(_ name: String) -> String? {
    ["/usr/bin/\(name)", "/bin/\(name)"].first(where: FileManager.default.isExecutableFile)
  }

  /// Runs a peer tool in `folder` to completion; a failure is an error.
  static func run(_ tool: String, _ arguments: [String], in folder: URL) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: tool)
    process.arguments = arguments
    process.currentDirectoryURL = folder
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw RawFiles.Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed")
    }
  }
}
