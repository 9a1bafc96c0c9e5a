import Foundation
import Quire
import Testing

/// Two devices — two folders, two sets of XDG folders, two `quire sync run` processes — and one
/// `quire server`, all on loopback.
@Suite("Quire Sync agents on two devices")
struct SyncAgentTests {
  @Test(
    "documents created, edited, renamed, moved and deleted on either device follow on the other")
  func bothDirections() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()

    try a.write("a note", to: "Note.txt")
    try a.write("trip text", to: "Trip.mydoc/text.txt")
    try Data(SyncTestSupport.random(200_000, seed: 7)).write(to: a.url("Trip.mydoc/image.png"))
    try a.write("one", to: "Holiday.album/1.jpg")
    try SyncDevice.sync(a, b)
    #expect(b.text("Note.txt") == "a note", "a new text file")
    #expect(b.text("Trip.mydoc/text.txt") == "trip text", "a new package")
    #expect(b.exists("Holiday.album/1.jpg"))
    #expect(
      FileManager.default.contents(atPath: b.url("Trip.mydoc/image.png").path)
        == Data(SyncTestSupport.random(200_000, seed: 7)))
    #expect(
      ItemIdentity.stored(at: b.url("Trip.mydoc")) == ItemIdentity.stored(at: a.url("Trip.mydoc")))

    try b.write("edited on B", to: "Trip.mydoc/text.txt")
    try b.write("edited note", to: "Note.txt")
    try SyncDevice.sync(b, a)
    #expect(a.text("Trip.mydoc/text.txt") == "edited on B", "an edit on B")
    #expect(a.text("Note.txt") == "edited note")
    try Data("safe-saved on A".utf8).write(to: a.url("Note.txt"), options: .atomic)
    try SyncDevice.sync(a, b)
    #expect(
      b.text("Note.txt") == "safe-saved on A",
      "a new file renamed over a synced one (another program's safe-save) is the same document")
    #expect(!b.exists("Note 2.txt"))

    try FileManager.default.createDirectory(at: a.url("Trips"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: a.url("Trip.mydoc"), to: a.url("Trips/Rome.mydoc"))
    try SyncDevice.sync(a, b)
    #expect(b.exists("Trips/Rome.mydoc/text.txt") && !b.exists("Trip.mydoc"), "a move")
    #expect(b.text("Trips/Rome.mydoc/text.txt") == "edited on B")

    try FileManager.default.removeItem(at: b.url("Note.txt"))
    try SyncDevice.sync(b, a)
    #expect(!a.exists("Note.txt"), "a deletion")
    let trash = a.home.url.appendingPathComponent("data/Trash/files")
    #expect(
      (try? FileManager.default.contentsOfDirectory(atPath: trash.path))?.contains("Note.txt")
        == true,
      "a deletion from another device goes to the Trash")

    try a.write("two", to: "Holiday.album/2.jpg")
    try FileManager.default.removeItem(at: a.url("Holiday.album/1.jpg"))
    try SyncDevice.sync(a, b)
    #expect(
      b.exists("Holiday.album/2.jpg") && !b.exists("Holiday.album/1.jpg"),
      "members added and removed inside a package")
    // The remote tree each agent keeps: Trips/Rome.mydoc and Holiday.album (the note deleted).
    try a.sync()
    #expect(try a.report().remoteItems == 2, "A's remote tree")
    #expect(try b.report().remoteItems == 2, "B's remote tree")
  }

  @Test("an agent killed and restarted, and an offline server, lose nothing and converge")
  func killedAndOffline() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    try a.write("first", to: "Doc.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Doc.txt") == "first")

    b.kill()
    try a.write("while B was away", to: "Doc.txt")
    try a.write("new while B was away", to: "New.txt")
    try b.write("B offline edit", to: "FromB.txt")
    try b.start()
    try SyncDevice.sync(a, b, a)
    #expect(b.text("Doc.txt") == "while B was away" && b.text("New.txt") != nil)
    #expect(a.text("FromB.txt") == "B offline edit")

    server.kill()
    try a.write("written while the server was down", to: "Offline.txt")
    try server.restart()
    try SyncDevice.sync(a, b)
    #expect(
      b.text("Offline.txt") == "written while the server was down",
      "an edit made while the server was down arrives once it is back")
    let status = try a.status()
    #expect(status.contains("\"connection\" : \"online\""), "\(status)")
  }

  @Test(
    "a reader on B never sees a package mixed from two revisions while A saves it again and again")
  func packagesArriveWhole() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    let package = "Pair.mydoc"
    func save(_ round: Int) throws {
      let wrapper = FileWrapper(directoryWithFileWrappers: [
        "left.txt": FileWrapper(regularFileWithContents: Data("round \(round)".utf8)),
        "right.txt": FileWrapper(regularFileWithContents: Data("round \(round)".utf8)),
      ])
      try FileCoordinator().coordinate(writingItemAt: a.url(package)) { url in
        try wrapper.write(to: url, originalContentsURL: url)
      }
    }
    try save(0)
    #expect(await eventually { b.text("\(package)/right.txt") == "round 0" })
    let target = b.url(package)
    let reader = Task {
      var mixed = 0
      var reads = 0
      while !Task.isCancelled {
        let pair = try? FileCoordinator().coordinate(readingItemAt: target) { url in
          (
            String(
              decoding: (try? Data(contentsOf: url.appendingPathComponent("left.txt"))) ?? Data(),
              as: UTF8.self),
            String(
              decoding: (try? Data(contentsOf: url.appendingPathComponent("right.txt"))) ?? Data(),
              as: UTF8.self)
          )
        }
        if let pair {
          reads += 1
          if pair.0 != pair.1 { mixed += 1 }
        }
        await Task.yield()
      }
      return (mixed, reads)
    }
    for round in 1...40 { try save(round) }
    #expect(await eventually { b.text("\(package)/left.txt") == "round 40" })
    reader.cancel()
    let (mixed, reads) = await reader.value
    #expect(reads > 0)
    #expect(
      mixed == 0, "a coordinated reader saw two revisions mixed in \(mixed) of \(reads) reads")
  }
}
