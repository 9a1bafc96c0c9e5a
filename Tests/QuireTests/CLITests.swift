import Foundation
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// The `quire` executable, run as a real process.
@Suite("quire CLI")
struct CLITests {
  func quire(_ arguments: String...) throws -> Executables.Output {
    try Executables.run("quire", arguments)
  }

  @Test(
    "new creates packages and flat documents of declared types, adding the extension; a taken name gets a unique one"
  )
  func new() throws {
    let folder = try TemporaryDirectory()
    let mydoc = try quire("new", "mydoc", folder.file("Report").path)
    #expect(mydoc.status == 0 && mydoc.stdout == folder.file("Report.mydoc").path + "\n")
    #expect(try Disk.tree(folder.file("Report.mydoc")).isEmpty)
    #expect(try quire("new", "net.gacha.mydoc", folder.file("Other.mydoc").path).status == 0)
    #expect(
      try quire("new", "mydoc", folder.file("Other").path).stdout.hasSuffix("Other 2.mydoc\n"))
    #expect(try quire("new", "text", folder.file("notes").path).status == 0)
    #expect(try Disk.read(folder.file("notes.txt")) == "")
    #expect(try quire("new", "Album", folder.file("Trip").path).status == 0)
    #expect(
      try Disk.tree(folder.url).sorted() == [
        "Other 2.mydoc/", "Other.mydoc/", "Report.mydoc/", "Trip.album/", "notes.txt",
      ])
  }

  @Test(
    "errors are one clear line on stderr and a non-zero exit",
    arguments: [
      ["show", "BAD"], ["new", "nosuchtype", "x"], ["show", "EXISTING.mydoc"], ["info", "MISSING"],
      ["export", "MISSING", "x.zip"],
      ["import", "BAD", "DEST"], ["new", "mydoc", "DEEP/nope/x"],
    ])
  func errors(arguments: [String]) throws {
    let folder = try TemporaryDirectory()
    try Disk.write("a file, not a package", to: folder.file("EXISTING.mydoc"))
    try Disk.write("not a zip", to: folder.file("BAD"))
    let resolved = arguments.map {
      ["EXISTING.mydoc", "MISSING", "BAD", "DEST", "DEEP/nope/x"].contains($0)
        ? folder.file($0).path : $0
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

  @Test("quire --help says what Quire is and groups its commands")
  func groupedHelp() throws {
    let output = try quire("--help")
    #expect(output.status == 0)
    let text = output.stdout
    #expect(text.contains("Document-based apps for Swift on Linux"), "\(text)")
    let groups = ["THE APP", "DOCUMENTS", "SYNC AND SHARING", "THE SERVER"]
    let places = groups.map { text.range(of: $0 + " SUBCOMMANDS:")?.lowerBound }
    #expect(places.allSatisfy { $0 != nil }, "\(text)")
    #expect(places.compactMap { $0 } == places.compactMap { $0 }.sorted(), "in this order")
    for (group, command) in [("THE APP", "install-desktop"), ("SYNC AND SHARING", "unshare")] {
      guard let start = text.range(of: group + " SUBCOMMANDS:")?.upperBound else { continue }
      let rest = text[start...]
      let section = rest[..<(rest.range(of: "SUBCOMMANDS:")?.lowerBound ?? rest.endIndex)]
      #expect(section.contains(command), "\(command) under \(group)")
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

@Suite("quire CLI: documents")
struct CLIDocumentTests {
  func quire(_ arguments: String...) throws -> Executables.Output {
    try Executables.run(
      "quire", arguments,
      environment: [
        "XDG_CACHE_HOME": NSTemporaryDirectory() + "quire-cli-cache",
        "XDG_DATA_HOME": NSTemporaryDirectory() + "quire-cli-data",
      ])
  }

  // Not on the main actor: its fourteen processes would hold every document test still.
  @Test("new, edit, show and thumbnail work on MyDoc, text and album documents")
  func documents() throws {
    let folder = try TemporaryDirectory()
    let picture = folder.file("picture.png")
    try DocumentTests.png(width: 320, height: 160).write(to: picture)
    #expect(
      try quire("new", "mydoc", folder.file("Doc").path).stdout == folder.file("Doc.mydoc").path
        + "\n")
    #expect(
      try quire("new", "mydoc", folder.file("Doc").path).stdout == folder.file("Doc 2.mydoc").path
        + "\n")
    let edited = try quire("edit", folder.file("Doc.mydoc").path, "--text", "Hello")
    #expect(edited.status == 0 && edited.stdout.contains("undoable: Typing"))
    #expect(try quire("edit", folder.file("Doc.mydoc").path, "--image", picture.path).status == 0)
    #expect(try Disk.read(folder.file("Doc.mydoc/text.txt")) == "Hello")
    #expect(try Data(contentsOf: folder.file("Doc.mydoc/image.png")) == Data(contentsOf: picture))
    let shown = try quire("show", folder.file("Doc.mydoc").path)
    #expect(shown.stdout.contains("320×160") && shown.stdout.contains("text:  Hello"))
    #expect(
      try quire("thumbnail", folder.file("Doc.mydoc").path, "--out", folder.file("thumb.png").path)
        .status == 0)
    let thumbnail = try RasterImage(decoding: Data(contentsOf: folder.file("thumb.png")))
    #expect(thumbnail.width == 256 && thumbnail.height == 128)

    #expect(try quire("new", "album", folder.file("Trip").path).status == 0)
    #expect(
      try quire("edit", folder.file("Trip.album").path, "--add-image", picture.path).status == 0)
    #expect(
      try quire("edit", folder.file("Trip.album").path, "--add-image", picture.path).stdout
        .contains("picture 2.png"))
    #expect(
      try quire("edit", folder.file("Trip.album").path, "--remove-image", "picture.png").status == 0
    )
    #expect(try Disk.tree(folder.file("Trip.album")) == ["picture 2.png"])
    #expect(
      try quire(
        "edit", folder.file("Trip.album").path, "--add-image",
        folder.file("Doc.mydoc/text.txt").path
      ).status != 0)

    #expect(try quire("new", "text", folder.file("Notes").path).status == 0)
    #expect(try quire("edit", folder.file("Notes.txt").path, "--text", "one\ntwo").status == 0)
    #expect(try quire("show", folder.file("Notes.txt").path).stdout.contains("2 lines"))
    #expect(
      try quire("thumbnail", folder.file("Notes.txt").path, "--out", folder.file("notes.svg").path)
        .status == 0)
    #expect(try Disk.read(folder.file("notes.svg")).contains("<svg"))
    let wrong = try quire("edit", folder.file("Notes.txt").path, "--image", picture.path)
    #expect(
      wrong.status != 0 && wrong.stderr.hasPrefix("quire: ")
        && wrong.stderr.split(separator: "\n").count == 1)
  }
}

@Suite("quire watch")
struct CLIWatchTests {
  @Test("watch prints changes by other programs as they happen, one line each")
  func watch() throws {
    let folder = try TemporaryDirectory()
    let process = Process()
    process.executableURL = Executables.url("quire")
    process.arguments = ["watch", folder.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    defer {
      // SIGKILL: a child spawned from a concurrency thread inherits that thread's blocked SIGTERM.
      kill(process.processIdentifier, SIGKILL)
      process.waitForExit()
    }
    let reader = LineReader(output.fileHandleForReading)
    // The watch may start after the first write: keep writing new files until one is reported.
    var index = 0
    var seen: String?
    while seen == nil && index < 1000 {
      try Disk.write("x", to: folder.file("file-\(index).txt"))
      index += 1
      if let line = reader.nextLineIfAvailable() { seen = line }
    }
    let line = try #require(seen ?? reader.nextLine())
    // The first file seen may have been created just before the watch took hold: then its
    // write is what is reported.
    let reported = ["created ", "changed "].contains {
      line.hasPrefix($0 + folder.path + "/file-")
    }
    #expect(reported, "\(line)")
  }
}
