import Foundation
import Testing

/// `quire merge BASE MINE THEIRS`, run as a separate process on real files and packages.
@Suite("quire merge")
struct MergeCommandTests {
  private func write(_ files: [String: String], in folder: URL) throws {
    for (path, text) in files { try Disk.write(text, to: folder.appendingPathComponent(path)) }
  }

  private func files(in folder: URL) throws -> [String: String] {
    var result: [String: String] = [:]
    for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
      let url = folder.appendingPathComponent(name)
      var isDirectory: ObjCBool = false
      if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      {
        result[name] = try String(contentsOf: url, encoding: .utf8)
      }
    }
    return result
  }

  @Test("two text files merge into MINE as git merge-file merges them, exit 0")
  func textFiles() throws {
    let dir = try TemporaryDirectory()
    try write(
      [
        "base.txt": "a\nb\nc\nd\ne\n", "mine.txt": "A\nb\nc\nd\ne\n",
        "theirs.txt": "a\nb\nc\nd\nE\n",
      ],
      in: dir.url)
    let git = try Executables.runCommand(
      try #require(Executables.which("git")),
      [
        "merge-file", "-p", dir.file("mine.txt").path, dir.file("base.txt").path,
        dir.file("theirs.txt").path,
      ])
    let run = try Executables.run(
      "quire",
      [
        "merge", dir.file("base.txt").path, dir.file("mine.txt").path,
        dir.file("theirs.txt").path,
      ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try String(contentsOf: dir.file("mine.txt"), encoding: .utf8) == git.stdout)
    #expect(run.stdout.contains("merged   mine.txt"))
  }

  @Test("overlapping text edits conflict: markers, one line on stderr, a non-zero exit")
  func textConflict() throws {
    let dir = try TemporaryDirectory()
    try write(
      ["base.txt": "a\nb\n", "mine.txt": "a\nmine\n", "theirs.txt": "a\ntheirs\n"], in: dir.url)
    let run = try Executables.run(
      "quire",
      [
        "merge", dir.file("base.txt").path, dir.file("mine.txt").path,
        dir.file("theirs.txt").path, "--output", dir.file("out.txt").path,
      ])
    #expect(run.status == 1)
    #expect(run.stderr == "quire: 1 conflict left in the merge.\n")
    let out = try String(contentsOf: dir.file("out.txt"), encoding: .utf8)
    #expect(out.contains("<<<<<<< ") && out.contains("mine\n=======\ntheirs\n>>>>>>> "))
    #expect(try String(contentsOf: dir.file("mine.txt"), encoding: .utf8) == "a\nmine\n")
  }

  @Test(
    "two packages merge member by member; a change beats a removal; MINE untouched with --output")
  func packages() throws {
    let dir = try TemporaryDirectory()
    let base = ["text.txt": "one\ntwo\nthree\nfour\n", "1.png": "1", "2.png": "2", "5.png": "5"]
    try write(base, in: dir.file("Base.mydoc"))
    var mine = base
    mine["text.txt"] = "ONE\ntwo\nthree\nfour\n"
    mine["1.png"] = nil
    mine["3.png"] = "3"
    mine["5.png"] = nil
    try write(mine, in: dir.file("Mine.mydoc"))
    var theirs = base
    theirs["text.txt"] = "one\ntwo\nthree\nFOUR\n"
    theirs["2.png"] = "2, theirs"
    theirs["4.png"] = "4"
    theirs["5.png"] = "5, changed"
    try write(theirs, in: dir.file("Theirs.mydoc"))
    let run = try Executables.run(
      "quire",
      [
        "merge", dir.file("Base.mydoc").path, dir.file("Mine.mydoc").path,
        dir.file("Theirs.mydoc").path, "--output", dir.file("Out.mydoc").path,
      ])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(
      try files(in: dir.file("Out.mydoc")) == [
        "text.txt": "ONE\ntwo\nthree\nFOUR\n", "2.png": "2, theirs", "3.png": "3", "4.png": "4",
        "5.png": "5, changed",
      ])
    #expect(try files(in: dir.file("Mine.mydoc")) == mine)
    for line in [
      "merged   text.txt", "removed  1.png", "theirs   2.png", "mine     3.png",
      "theirs   5.png",
    ] {
      #expect(run.stdout.contains(line), "\(run.stdout)")
    }
  }

  @Test("an image changed on both sides is a conflict: mine's is kept and the exit is non-zero")
  func binaryConflict() throws {
    let dir = try TemporaryDirectory()
    try write(["image.png": "base"], in: dir.file("Base.mydoc"))
    try write(["image.png": "mine"], in: dir.file("Mine.mydoc"))
    try write(["image.png": "theirs"], in: dir.file("Theirs.mydoc"))
    let run = try Executables.run(
      "quire",
      [
        "merge", dir.file("Base.mydoc").path, dir.file("Mine.mydoc").path,
        dir.file("Theirs.mydoc").path,
      ])
    #expect(run.status == 1)
    #expect(run.stdout.contains("conflict image.png"))
    #expect(try files(in: dir.file("Mine.mydoc")) == ["image.png": "mine"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [
        "Base.mydoc", "Mine.mydoc", "Theirs.mydoc",
      ], "nothing left beside the result")
  }

  @Test("a package and a file cannot be merged: one clear line, exit 1")
  func mixedKinds() throws {
    let dir = try TemporaryDirectory()
    try write(["text.txt": "x"], in: dir.file("Base.mydoc"))
    try write(["Mine.txt": "x", "Theirs.txt": "y"], in: dir.url)
    let run = try Executables.run(
      "quire",
      [
        "merge", dir.file("Base.mydoc").path, dir.file("Mine.txt").path,
        dir.file("Theirs.txt").path,
      ])
    #expect(run.status == 1)
    #expect(run.stderr.hasPrefix("quire: ") && run.stderr.contains("all be packages"))
    #expect(run.stderr.split(separator: "\n").count == 1)
  }
}
