import Foundation
import Testing

@testable import Quire

/// Archives built to attack the importer: each must fail with a clear, typed error, and nothing
/// may be written in the destination or anywhere else.
@Suite("Hostile archives", .enabled(if: Python.isAvailable, Python.missing))
struct HostileArchiveTests {
  struct Case: CustomTestStringConvertible, Sendable {
    var name: String
    var entries: [(String, String, String)]
    var code: QuireError.Code
    var limits = ArchiveLimits.default
    var testDescription: String { name }
  }

  static let cases: [Case] = [
    Case(
      name: "parent traversal",
      entries: [("Doc/ok.txt", "file", "x"), ("Doc/../../evil.txt", "file", "x")],
      code: .unsafeArchive),
    Case(
      name: "top-level traversal", entries: [("../evil.txt", "file", "x")], code: .unsafeArchive),
    Case(
      name: "absolute name", entries: [("/tmp/quire-evil.txt", "file", "x")], code: .unsafeArchive),
    Case(
      name: "absolute link",
      entries: [("Doc/a.txt", "file", "x"), ("Doc/link", "link", "/etc/passwd")],
      code: .unsafeArchive),
    Case(
      name: "link climbing out",
      entries: [("Doc/a.txt", "file", "x"), ("Doc/sub/link", "link", "../../outside")],
      code: .unsafeArchive),
    Case(
      name: "link through a link to the root",
      entries: [
        ("Doc/a.txt", "file", "x"), ("Doc/here", "link", "."),
        ("Doc/out", "link", "here/../escape"),
      ],
      code: .unsafeArchive),
    Case(
      name: "duplicate names", entries: [("Doc/a.txt", "file", "1"), ("Doc/a.txt", "file", "2")],
      code: .unsafeArchive),
    Case(
      name: "writing through a link",
      entries: [
        ("Doc/sub/", "dir", ""), ("Doc/link", "link", "sub"), ("Doc/link/x.txt", "file", "x"),
      ],
      code: .unsafeArchive),
    Case(
      name: "file inside a file", entries: [("Doc/a", "file", "x"), ("Doc/a/b", "file", "y")],
      code: .unsafeArchive),
    Case(
      name: "name too long for Linux",
      entries: [("Doc/" + String(repeating: "n", count: 300), "file", "x")], code: .invalidName),
    Case(name: "empty path component", entries: [("Doc//a.txt", "file", "x")], code: .invalidName),
    Case(
      name: "too many entries", entries: (0..<11).map { ("Doc/\($0).txt", "file", "x") },
      code: .archiveTooLarge,
      limits: ArchiveLimits(maximumEntryCount: 10)),
    Case(
      name: "too large in total", entries: [("Doc/big", "zeros", "2000000")],
      code: .archiveTooLarge,
      limits: ArchiveLimits(maximumTotalSize: 1_000_000)),
    Case(
      name: "compression bomb", entries: [("Doc/bomb", "zeros", "5000000")], code: .archiveTooLarge,
      limits: ArchiveLimits(maximumCompressionRatio: 100)),
  ]

  static func expectNothingWritten(_ folder: TemporaryDirectory, destination: URL, archive: URL)
    throws
  {
    #expect(try Disk.tree(destination).isEmpty, "the destination must stay empty")
    #expect(try Disk.tree(folder.url).sorted() == ["archive.zip", "dest/"])
    #expect(!FileManager.default.fileExists(atPath: "/tmp/quire-evil.txt"))
  }

  @Test("hostile archives are refused and write nothing", arguments: cases)
  func refused(hostile: Case) throws {
    let folder = try TemporaryDirectory()
    let archive = folder.file("archive.zip")
    try Python.makeZip(archive.path, hostile.entries)
    let destination = folder.file("dest")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    #expect {
      try PackageArchive.importArchive(archive, into: destination, limits: hostile.limits)
    } throws: { error in
      let error = error as? QuireError
      return error?.code == hostile.code && error?.message.contains(archive.path) == true
    }
    try Self.expectNothingWritten(folder, destination: destination, archive: archive)
  }

  /// Builds an archive and damages its bytes with `damage`.
  func damaged(_ damage: String) throws -> (TemporaryDirectory, URL, URL) {
    let folder = try TemporaryDirectory()
    let archive = folder.file("archive.zip")
    try Python.makeZip(
      archive.path,
      [
        ("Doc/a.txt", "file", String(repeating: "abcdefgh", count: 4000)),
        ("Doc/b.txt", "file", "b"),
      ])
    try Python.run(
      """
      import sys, struct
      path, how = sys.argv[1], sys.argv[2]
      data = bytearray(open(path, "rb").read())
      if how == "truncate":
          data = data[: len(data) // 2]
      elif how == "flip":
          for i in range(60, 120):
              data[i] ^= 0x55
      elif how == "lie":
          cd = struct.unpack("<I", data[-6:-2])[0]
          struct.pack_into("<I", data, 22, 100)        # local header: uncompressed size
          struct.pack_into("<I", data, cd + 24, 100)   # central directory: uncompressed size
      elif how == "cut-directory":
          count = struct.unpack("<H", data[-12:-10])[0]
          struct.pack_into("<HH", data, len(data) - 14, count + 3, count + 3)
      elif how == "garbage":
          data = bytearray(b"this is not a zip archive at all" * 10)
      open(path, "wb").write(data)
      """, [archive.path, damage])
    let destination = folder.file("dest")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    return (folder, archive, destination)
  }

  @Test(
    "damaged archives are refused as corrupt",
    arguments: ["truncate", "flip", "cut-directory", "garbage"])
  func corrupt(damage: String) throws {
    let (folder, archive, destination) = try damaged(damage)
    #expect {
      try PackageArchive.importArchive(archive, into: destination)
    } throws: { ($0 as? QuireError)?.code == .corruptArchive }
    try Self.expectNothingWritten(folder, destination: destination, archive: archive)
  }

  @Test("an entry that expands beyond what its header declares is stopped")
  func lyingHeader() throws {
    let (folder, archive, destination) = try damaged("lie")
    #expect {
      try PackageArchive.importArchive(archive, into: destination)
    } throws: { [.archiveTooLarge, .corruptArchive].contains(($0 as? QuireError)?.code) }
    try Self.expectNothingWritten(folder, destination: destination, archive: archive)
  }
}
