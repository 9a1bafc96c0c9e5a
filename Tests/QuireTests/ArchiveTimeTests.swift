import Foundation
import Testing
import ZIPFoundation

@testable import Quire

/// Archives keep modification times across time zones with Info-ZIP's tools, and packages with
/// more entries than the classic ZIP format counts (65 535) go out and back through ZIP64.
@Suite(
  "Archives across time zones and at scale",
  .enabled(if: Executables.hasInfoZip, "zip/unzip are not installed (scripts/test installs them)"))
struct ArchiveTimeTests {
  /// Far from UTC on both sides, so a time taken in the wrong zone is off by hours.
  static let farEast = "Pacific/Kiritimati"  // UTC+14
  static let farWest = "America/Los_Angeles"  // UTC-8 or -7
  static let when = Date(timeIntervalSince1970: 1_623_760_496)  // 2021-06-15 12:34:56 UTC

  private func package(in folder: TemporaryDirectory) throws -> URL {
    let package = folder.file("Dated.mydoc")
    let member = package.appendingPathComponent("text.txt")
    try Disk.write("dated", to: member)
    try FileManager.default.setAttributes([.modificationDate: Self.when], ofItemAtPath: member.path)
    return package
  }

  private func modified(_ url: URL) throws -> Date {
    try FileManager.default.attributesOfItem(atPath: url.path)[.modificationDate] as! Date
  }

  @Test("unzip in a far time zone restores the time Quire exported")
  func unzipKeepsQuireTimes() throws {
    let folder = try TemporaryDirectory()
    let archive = folder.file("dated.zip")
    try PackageArchive.export(try package(in: folder), to: archive)
    let out = folder.file("out")
    let unzip = try Executables.runCommand(
      try #require(Executables.which("unzip")), ["-q", archive.path, "-d", out.path],
      environment: ["TZ": Self.farEast])
    #expect(unzip.status == 0, "\(unzip.stderr)")
    let date = try modified(out.appendingPathComponent("Dated.mydoc/text.txt"))
    #expect(abs(date.timeIntervalSince(Self.when)) < 1, "unzip restored \(date), not \(Self.when)")
  }

  @Test("Quire imports zip's times made in a far time zone, with and without extended timestamps")
  func quireKeepsZipTimes() throws {
    for options in [["-q", "-r"], ["-q", "-r", "-X"]] {  // -X: no extra fields, DOS time only
      let folder = try TemporaryDirectory()
      _ = try package(in: folder)
      let archive = folder.file("made-by-zip.zip")
      let process = Process()
      process.executableURL = Executables.which("zip")
      process.arguments = options + [archive.path, "Dated.mydoc"]
      process.currentDirectoryURL = folder.url
      process.environment = ["TZ": Self.farWest, "PATH": "/usr/bin:/bin"]
      try process.run()
      #expect(process.waitForExit() == 0)
      // A DOS time means local time to its writer: the importer shares the writer's zone.
      let destination = folder.file("in")
      try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
      let imported = try Executables.run(
        "quire", ["import", archive.path, destination.path], environment: ["TZ": Self.farWest])
      #expect(imported.status == 0, "\(imported.stderr)")
      let date = try modified(destination.appendingPathComponent("Dated.mydoc/text.txt"))
      #expect(
        abs(date.timeIntervalSince(Self.when)) <= 2, "zip \(options): imported as \(date)")
    }
  }

  @Test("70 000 entries are written as ZIP64 that unzip verifies and Quire's import plans in full")
  func zip64() throws {
    // Written from memory, so the test does not churn 70 000 files on a disk other tests share.
    let folder = try TemporaryDirectory()
    let archive = folder.file("many.zip")
    var writer = try ArchiveWriter(path: archive.path)
    try writer.addDirectory("Many.mydoc", mode: 0o755, date: Self.when)
    for index in 0..<70_000 {
      try writer.addFile(
        "Many.mydoc/m-\(index).txt", contents: Data("\(index)".utf8), mode: 0o644,
        date: Self.when)
    }
    try writer.finish()
    let unzip = try #require(Executables.which("unzip"))
    let tested = try Executables.runCommand(unzip, ["-tq", archive.path])
    #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
    let listing = try Executables.runCommand(unzip, ["-Z1", archive.path])
    #expect(listing.stdout.split(separator: "\n").count == 70_001)
    #expect(ArchiveDirectory.declaredEntryCount(archive.path) == 70_001)
    #expect(ArchiveDirectory.modificationTimes(archive.path)["Many.mydoc/m-69999.txt"] == Self.when)
    let plan = try ArchivePlan(
      archive: try ZIPFoundation.Archive(url: archive, accessMode: .read),
      archiveName: "many.zip", limits: .default, path: archive.path)
    #expect(plan.name == "Many.mydoc" && plan.items.count == 70_000)
  }
}
