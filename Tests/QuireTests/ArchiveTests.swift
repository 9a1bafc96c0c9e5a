import Foundation
import Testing

@testable import Quire

@Suite("Portable archives")
struct ArchiveTests {
  /// A package with non-ASCII names, permissions, an empty folder and an internal link.
  static func makeRichPackage(in folder: TemporaryDirectory) throws -> URL {
    let package = folder.file("Rapport été.mydoc")
    try Disk.write("texte", to: package.appendingPathComponent("text.txt"))
    try Disk.write("über", to: package.appendingPathComponent("Über café.txt"))
    try Disk.write("メモ", to: package.appendingPathComponent("日本語/メモ.txt"))
    try Disk.write("#!/bin/sh\n", to: package.appendingPathComponent("run.sh"))
    try FileManager.default.createDirectory(
      at: package.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      atPath: package.appendingPathComponent("日本語/link").path, withDestinationPath: "../text.txt")
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o755], ofItemAtPath: package.appendingPathComponent("run.sh").path)
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: package.appendingPathComponent("text.txt").path)
    let old = Date(timeIntervalSince1970: 1_600_000_000)
    try FileManager.default.setAttributes(
      [.modificationDate: old], ofItemAtPath: package.appendingPathComponent("text.txt").path)
    return package
  }

  static func attributes(_ url: URL) throws -> (Int, Date) {
    let values = try FileManager.default.attributesOfItem(atPath: url.path)
    return (values[.posixPermissions] as! Int, values[.modificationDate] as! Date)
  }

  @Test(
    "export then import gives back names, contents, permissions, dates, empty folders and links")
  func roundTrip() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makeRichPackage(in: folder)
    let archive = folder.file("export.zip")
    try PackageArchive.export(package, to: archive)
    let destination = folder.file("imported")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let imported = try PackageArchive.importArchive(archive, into: destination)
    #expect(imported.lastPathComponent == "Rapport été.mydoc")
    #expect(try Disk.snapshot(imported) == Disk.snapshot(package))
    #expect(try Disk.tree(imported).contains("日本語/link -> ../text.txt"))
    #expect(try Disk.tree(imported).contains("empty/"))
    for member in ["text.txt", "run.sh", "Über café.txt"] {
      let (mode, date) = try Self.attributes(imported.appendingPathComponent(member))
      let (originalMode, originalDate) = try Self.attributes(package.appendingPathComponent(member))
      #expect(mode == originalMode, "\(member)")
      #expect(
        abs(date.timeIntervalSince(originalDate)) <= 2,
        "\(member): the ZIP format keeps two-second dates")
    }
    // A second import does not overwrite the first.
    let second = try PackageArchive.importArchive(archive, into: destination)
    #expect(second.lastPathComponent == "Rapport été 2.mydoc")
    #expect(
      try Disk.tree(destination).filter { !$0.contains("/") || $0.hasSuffix(".mydoc/") }.count == 2)
  }

  @Test(
    "unzip and Python's zipfile accept what Quire writes",
    .enabled(
      if: Executables.hasInfoZip, "zip/unzip are not installed (scripts/test installs them)"),
    .enabled(if: Python.isAvailable, Python.missing))
  func realToolsReadQuireArchives() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makeRichPackage(in: folder)
    let archive = folder.file("export.zip")
    try PackageArchive.export(package, to: archive)
    let unzip = try #require(
      Executables.which("unzip"), "unzip is needed (scripts/test installs it)")
    let tested = try Executables.runCommand(unzip, ["-t", archive.path])
    #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
    let out = folder.file("unzipped")
    #expect(try Executables.runCommand(unzip, ["-q", archive.path, "-d", out.path]).status == 0)
    #expect(
      try Disk.snapshot(out.appendingPathComponent("Rapport été.mydoc")) == Disk.snapshot(package))
    let listing = try Python.run(
      "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nassert z.testzip() is None\nprint('\\n'.join(sorted(z.namelist())))",
      [archive.path])
    #expect(listing.contains("Rapport été.mydoc/日本語/メモ.txt"))
    #expect(listing.contains("Rapport été.mydoc/empty/"))
  }

  @Test(
    "Quire imports what zip -r -y and Python's zipfile write",
    .enabled(
      if: Executables.hasInfoZip, "zip/unzip are not installed (scripts/test installs them)"),
    .enabled(if: Python.isAvailable, Python.missing))
  func quireReadsRealToolsArchives() throws {
    let folder = try TemporaryDirectory()
    let package = try Self.makeRichPackage(in: folder)
    let zip = try #require(Executables.which("zip"), "zip is needed (scripts/test installs it)")
    let made = folder.file("by-zip.zip")
    let process = Process()
    process.executableURL = zip
    process.arguments = ["-q", "-r", "-y", made.path, package.lastPathComponent]
    process.currentDirectoryURL = folder.url
    try process.run()
    #expect(process.waitForExit() == 0)
    let destination = folder.file("from-zip")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let imported = try PackageArchive.importArchive(made, into: destination)
    #expect(try Disk.snapshot(imported) == Disk.snapshot(package))
    #expect(try Self.attributes(imported.appendingPathComponent("run.sh")).0 == 0o755)

    let byPython = folder.file("by-python.zip")
    try Python.makeZip(
      byPython.path,
      [
        ("Notes/a.txt", "file", "alpha"), ("Notes/sub/", "dir", ""),
        ("Notes/sub/b.txt", "file", "beta"),
      ])
    let notes = try PackageArchive.importArchive(byPython, into: destination)
    #expect(notes.lastPathComponent == "Notes")
    #expect(try Disk.snapshot(notes) == ["a.txt": "alpha", "sub/": "", "sub/b.txt": "beta"])
  }

  @Test(
    "an archive with several top-level items becomes a folder named after the archive",
    .enabled(if: Python.isAvailable, Python.missing))
  func looseArchive() throws {
    let folder = try TemporaryDirectory()
    let archive = folder.file("Holiday.album.zip")
    try Python.makeZip(archive.path, [("one.jpg", "file", "1"), ("two.jpg", "file", "2")])
    let imported = try PackageArchive.importArchive(archive, into: folder.url)
    #expect(imported.lastPathComponent == "Holiday.album")
    #expect(try Disk.tree(imported) == ["one.jpg", "two.jpg"])
  }

  @Test("a single flat file round-trips")
  func flatFile() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("plain", to: file)
    try PackageArchive.export(file, to: folder.file("notes.zip"))
    let destination = folder.file("out")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let imported = try PackageArchive.importArchive(folder.file("notes.zip"), into: destination)
    #expect(imported.lastPathComponent == "notes.txt")
    #expect(try Disk.read(imported) == "plain")
  }
}
