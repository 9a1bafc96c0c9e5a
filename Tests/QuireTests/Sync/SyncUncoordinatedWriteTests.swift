import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A program that does not coordinate (an editor, a script) writes a document at the moment the
/// agent replaces it with a download from another device: the write lands in the file being
/// replaced, or comes just after the download's rename, before the agent records what it wrote.
/// Neither may be lost: the agent puts the first back and never takes the second for the
/// download; it uploads both on the revision they were made on, and the server merges.
@Suite("Quire Sync keeps uncoordinated writes made during a download")
struct SyncUncoordinatedWriteTests {
  @Test(
    "a write made while a download replaces the file is kept and merged, for a flat file and a package member",
    arguments: ["Notes.txt", "Doc.mydoc/text.txt"])
  func writeDuringDownloadIsKept(path: String) async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    let start = "one\ntwo\nthree\nfour\nfive\n"
    if path.contains(".mydoc/") { try a.write("an image", to: "Doc.mydoc/image.png") }
    try a.write(start, to: path)
    try SyncDevice.sync(a, b)
    #expect(b.text(path) == start)

    // The other program appends a line to A's copy the moment A's agent stages a download of
    // it, before the agent renames the download over it: once per round, as a program saves.
    // B writes as soon as A's merged line reaches it, often while its agent still writes it.
    let staging = a.url(path).deletingLastPathComponent()
    let writer = try HelperProcess(["write-when-staged", staging.path, a.url(path).path])
    #expect(writer.lines.nextLine() == "watching")
    let rounds = 8
    var helperLines: [String] = []
    for round in 1...rounds {
      kill(writer.process.processIdentifier, SIGUSR1)
      let current = try #require(b.text(path))
      try b.write("b-\(round)\n" + current, to: path)
      let line = writer.lines.nextLine(within: 60)  // written as A's agent staged the download
      helperLines.append(String(try #require(line, "round \(round)").dropFirst("wrote ".count)))
      try SyncDevice.sync(a, b)
      let wanted = (1...round).map { "b-\($0)" } + helperLines
      for device in [a, b] {
        let lines = Set(device.text(path)?.split(separator: "\n").map(String.init) ?? [])
        #expect(
          wanted.allSatisfy(lines.contains),
          "round \(round): every line on \(device === a ? "A" : "B"): \(device.text(path) ?? "none")"
        )
      }
    }
    writer.kill()

    try SyncDevice.sync(a, b)
    #expect(a.text(path) == b.text(path))
    #expect(try a.report().items.isEmpty)
    #expect(try a.hiddenLeftovers() == [])
  }
}
