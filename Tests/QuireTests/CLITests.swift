import Foundation
import Testing

@testable import Quire

/// The `quire` executable, run as a real process.
@Suite("quire CLI")
struct CLITests {
  func quire(_ arguments: String...) throws -> Executables.Output {
    try Executables.run("quire", arguments)
  }

  @Test("new creates packages and flat documents of declared types, adding the extension")
  func new() throws {
    let folder = try TemporaryDirectory()
    let mydoc = try quire("new", "mydoc", folder.file("Report").path)
    #expect(mydoc.status == 0 && mydoc.stdout == folder.file("Report.mydoc").path + "\n")
    #expect(try Disk.tree(folder.file("Report.mydoc")).isEmpty)
    #expect(try quire("new", "net.gacha.mydoc", folder.file("Other.mydoc").path).status == 0)
    #expect(try quire("new", "text", folder.file("notes").path).status == 0)
    #expect(try Disk.read(folder.file("notes.txt")) == "")
    #expect(try quire("new", "Album", folder.file("Trip").path).status == 0)
    #expect(
      try Disk.tree(folder.url).sorted() == [
        "Other.mydoc/", "Report.mydoc/", "Trip.album/", "notes.txt",
      ])
  }

  @Test(
    "errors are one clear line on stderr and a non-zero exit",
    arguments: [
      ["new", "mydoc", "EXISTING"], ["new", "nosuchtype", "x"], ["info", "MISSING"],
      ["export", "MISSING", "x.zip"],
      ["import", "BAD", "DEST"], ["new", "mydoc", "DEEP/nope/x"],
    ])
  func errors(arguments: [String]) throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      at: folder.file("EXISTING.mydoc"), withIntermediateDirectories: true)
    try Disk.write("not a zip", to: folder.file("BAD"))
    let resolved = arguments.map {
      ["EXISTING", "MISSING", "BAD", "DEST", "DEEP/nope/x"].contains($0) ? folder.file($0).path : $0
    }
    let output = try Executables.run("quire", resolved)
    #expect(output.status != 0)
    let lines = output.stderr.split(separator: "\n")
    #expect(lines.count == 1 && lines[0].hasPrefix("quire: "), "\(output.stderr)")
    #expect(output.stdout.isEmpty)
  }

  @Test("info shows the type, members and that an interrupted save was recovered")
  func info() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    try Disk.write("png", to: package.appendingPathComponent("image.png"))
    // An unfinished save: a staged member and no journal.
    try Disk.write("half", to: package.appendingPathComponent(".quire-stage-abc-0"))
    let output = try quire("info", package.path)
    #expect(output.status == 0)
    #expect(output.stdout.contains("net.gacha.mydoc (MyDoc Document), package"))
    #expect(output.stdout.contains("2 files"))
    #expect(output.stdout.contains("discarded an unfinished save"))
    #expect(output.stdout.contains("text.txt"))
    #expect(try Disk.tree(package) == ["image.png", "text.txt"])
  }

  @Test("export and import move a package through one archive file")
  func exportImport() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    #expect(try quire("export", package.path, folder.file("Doc.zip").path).status == 0)
    let destination = folder.file("elsewhere")
    try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
    let imported = try quire("import", folder.file("Doc.zip").path, destination.path)
    #expect(imported.status == 0)
    #expect(imported.stdout == destination.appendingPathComponent("Doc.mydoc").path + "\n")
    #expect(
      try Disk.snapshot(destination.appendingPathComponent("Doc.mydoc")) == ["text.txt": "hello"])
  }

  @Test("types lists system, sample and declared types")
  func types() throws {
    let folder = try TemporaryDirectory()
    try Disk.write(
      TypeRegistryTests.myDocJSON.replacingOccurrences(
        of: "net.gacha.mydoc", with: "com.example.extra"
      )
      .replacingOccurrences(of: "\"mydoc\"", with: "\"extra\""), to: folder.file("extra.json"))
    let output = try quire("types", "--declarations", folder.file("extra.json").path)
    #expect(output.status == 0)
    for expected in [
      "public.png", "net.gacha.mydoc", "org.quire.album", "com.example.extra",
      "MyDoc: net.gacha.mydoc (Editor, Owner, package)",
    ] {
      #expect(output.stdout.contains(expected), "\(expected)")
    }
  }

  @Test("every command has --help")
  func help() throws {
    for command in ["new", "info", "export", "import", "types"] {
      let output = try quire(command, "--help")
      #expect(output.status == 0 && output.stdout.contains("USAGE: quire \(command)"))
    }
  }
}
