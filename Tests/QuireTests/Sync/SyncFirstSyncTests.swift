import Foundation
import Quire
import QuireSyncProtocol
import Testing

/// A first sync of many new documents: the receiving agent places a page of them together (one
/// `syncfs`, a few coordinations, one transaction) and must still bring each one whole, with its
/// identity, mode and time, never over a file already there.
@Suite("The first sync of many documents")
struct SyncFirstSyncTests {
  @Test(
    "forty new files arrive whole with their identities, modes and times; a name taken on the receiving device is not overwritten"
  )
  func manyNewFiles() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    let names = (0..<40).map { "Many/f\($0).txt" }
    for (index, name) in names.enumerated() {
      try a.write("from A \(index) " + String(repeating: "x", count: index * 100), to: name)
    }
    try FileManager.default.setAttributes(
      [.posixPermissions: 0o600], ofItemAtPath: a.url(names[5]).path)
    // B holds a document of its own at one of the names before it first syncs.
    try b.write("B's own", to: names[3])
    try a.start()
    try a.sync()
    #expect(try a.report().remoteItems == 40, "A uploaded all forty")
    try b.start()
    // B's own document goes up as new, and the server's name for it comes back.
    try SyncDevice.sync(b, a, b)

    var arrived: [String: URL] = [:]  // A's identity → where it is on B
    let paths = try FileManager.default.subpathsOfDirectory(atPath: b.url("Many").path)
    for path in paths where !path.hasPrefix(".") {
      let url = b.url("Many/" + path)
      if let id = ItemIdentity.stored(at: url) { arrived[id] = url }
    }
    let complete = names.allSatisfy { name in
      ItemIdentity.stored(at: a.url(name)).map { arrived[$0] != nil } ?? false
    }
    #expect(complete, "only \(arrived.count) of A's forty reached B")
    for name in names {
      let source = a.url(name)
      let id = try #require(ItemIdentity.stored(at: source))
      let copy = try #require(arrived[id], "\(name) never reached B")
      #expect(
        FileManager.default.contents(atPath: copy.path)
          == FileManager.default.contents(atPath: source.path), "\(name)'s bytes")
      let sourceInfo = try FileManager.default.attributesOfItem(atPath: source.path)
      let copyInfo = try FileManager.default.attributesOfItem(atPath: copy.path)
      // The protocol carries times as seconds in a Double: exact to about a microsecond.
      let copied = try #require(copyInfo[.modificationDate] as? Date)
      let original = try #require(sourceInfo[.modificationDate] as? Date)
      #expect(
        abs(copied.timeIntervalSince(original)) < 0.000_01,
        "\(name)'s time: \(copied.timeIntervalSince1970) for \(original.timeIntervalSince1970)")
      #expect(
        copyInfo[.posixPermissions] as? Int == sourceInfo[.posixPermissions] as? Int,
        "\(name)'s mode")
    }
    // The server had A's document at the name first: it keeps the name on every device, and
    // B's own, new to the server, is named "f3 2" — on B as on the server.
    #expect(
      arrived[ItemIdentity.stored(at: a.url(names[3]))!] == b.url(names[3]),
      "A's document keeps its name")
    #expect(b.text("Many/f3 2.txt") == "B's own", "B's own became “f3 2.txt”")
    #expect(
      try FileManager.default.subpathsOfDirectory(atPath: b.url("Many").path).contains {
        b.text("Many/" + $0) == "B's own"
      }, "B's own document is kept")
    #expect(try b.hiddenLeftovers().isEmpty, "no temporary file is left behind")
    #expect(try b.report().items.isEmpty, "B has nothing pending")
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }

  @Test(
    "a large file whose chunks repeat arrives whole, with its identity, mode and time, and nothing is left beside it"
  )
  func largeFileWithRepeatedChunks() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    // 36 MiB that never repeat, then their first 8 MiB again: more than a download keeps in
    // memory, so B's spool is laid out as the file, and the repeated chunks go in twice.
    let unique = SyncTestSupport.random(36 << 20, seed: 29)
    let bytes = unique + unique[..<(8 << 20)]
    let source = a.url("Big/Film.bin")
    try FileManager.default.createDirectory(
      at: source.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: source)
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: source.path)
    try a.start()
    try b.start()
    let copy = b.url("Big/Film.bin")
    #expect(
      await eventually(seconds: 120) {
        (try? FileManager.default.attributesOfItem(atPath: copy.path)[.size] as? Int)
          == bytes.count && (try? b.report().items.isEmpty) == true
      }, "the file never arrived whole")
    #expect(FileManager.default.contents(atPath: copy.path) == Data(bytes), "its bytes")
    #expect(ItemIdentity.stored(at: copy) == ItemIdentity.stored(at: source), "its identity")
    let info = try FileManager.default.attributesOfItem(atPath: copy.path)
    let original = try FileManager.default.attributesOfItem(atPath: source.path)
    #expect(info[.posixPermissions] as? Int == 0o640, "its mode")
    let copied = try #require(info[.modificationDate] as? Date)
    let written = try #require(original[.modificationDate] as? Date)
    #expect(abs(copied.timeIntervalSince(written)) < 0.000_01, "its time")
    #expect(try b.hiddenLeftovers().isEmpty, "no temporary file is left behind")
    #expect(try b.unnamedOpenFiles().isEmpty, "the spool is closed")
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }

  @Test(
    "a package found with its identity and no record, a member short (a download cut before it was recorded), is brought whole, not sent again and again"
  )
  func unrecordedPackageShortOfAMember() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let c = try SyncDevice("C", server: server)
    try a.write("an image", to: "Doc.mydoc/image.png")
    try a.write("the text\n", to: "Doc.mydoc/text.txt")
    try a.start()
    try a.sync()
    // C holds A's package, with its identity and image.png as A has it, but no record of it
    // and no text.txt: as a download leaves it when its agent dies after placing it.
    let copy = try Executables.runCommand(
      URL(fileURLWithPath: "/bin/cp"), ["-a", a.url("Doc.mydoc").path, c.url("Doc.mydoc").path])
    try #require(copy.status == 0, "\(copy.stderr)")
    try FileManager.default.removeItem(at: c.url("Doc.mydoc/text.txt"))
    let alice = try await server.client(
      "alice", device: "check", container: "iCloud.net.gacha.quire")
    let before = try await alice.changes(since: 0).entries.count
    try c.start()
    try c.sync(timeout: 30)  // never answered while C sends it again and again
    #expect(
      c.text("Doc.mydoc/text.txt") == "the text\n" && c.text("Doc.mydoc/image.png") == "an image")
    try a.sync()
    #expect(a.text("Doc.mydoc/text.txt") == "the text\n", "A's package is as it was")
    let after = try await alice.changes(since: 0).entries.count
    #expect(after - before <= 1, "C's copy was sent \(after - before) times")
    #expect(try c.hiddenLeftovers().isEmpty)
  }
}
