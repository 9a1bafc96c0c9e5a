import Foundation
import Quire
import QuireCore
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireSync

/// A document moved on this device while another device's edit of it is downloaded. The pull
/// finds where the document is before it downloads; a move made after that, while the chunks
/// came, used to be missed: the download was written at the old name, and two files carried
/// one identity (the moved one, and a new one there), so the next scan could take either for
/// the document. Noticed with a share participant moving a shared file.
@Suite("A document moved here before a download of it")
struct MovedBeforeDownloadTests {
  /// The files and packages under `folder` that carry `id`, by relative path.
  private static func carrying(_ id: String, in folder: URL) throws -> [String] {
    try Disk.tree(folder).filter { !$0.hasPrefix(".") }
      .map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
      .filter { ItemIdentity.stored(at: folder.appendingPathComponent($0)) == id }
  }

  /// A whole manifest of `Notes.txt` holding `text`.
  static func flatManifest(_ text: String, id: String) -> RevisionManifest {
    let bytes = Array(text.utf8)
    let hash = ContentHash(of: bytes)
    return RevisionManifest(
      item: id, revision: 7, since: nil, kind: .file, path: "Documents/Notes.txt",
      deleted: false, conflict: false,
      change: ManifestChange(upserted: [
        ManifestMember(
          path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
          chunks: [ChunkReference(hash: hash, size: bytes.count)])
      ]))
  }

  @Test(
    "a download of a document moved since the pull found it writes nothing at the old name, for a flat file and a package",
    arguments: ["Notes.txt", "Doc.mydoc"])
  func movedDuringDownload(name: String) throws {
    let folder = try TemporaryDirectory()
    let id = UUID().uuidString
    let expected: [String: LocalItem.Member]
    let manifest: RevisionManifest
    if name == "Doc.mydoc" {
      expected = try ReplacedFilesTests.package(in: folder, id: id)
      manifest = ReplacedFilesTests.manifest("the server's text\n", id: id)
    } else {
      try Disk.write("the text\n", to: folder.file(name))
      try ItemIdentity.assign(id, to: folder.file(name))
      expected = ["": LocalItem.Member(size: 9, mode: 0o644, modifiedNanoseconds: 0)]
      manifest = Self.flatManifest("the server's text\n", id: id)
    }
    // The user moves it after the pull found it, before the download is written.
    try FileManager.default.createDirectory(
      at: folder.file("Sub"), withIntermediateDirectories: false)
    try FileManager.default.moveItem(at: folder.file(name), to: folder.file("Sub/" + name))

    let writer = DownloadWriter(folder: folder.url, identity: id)
    #expect {
      try writer.write(
        manifest, to: name, chunk: { _ in Array("the server's text\n".utf8) },
        incremental: false, expecting: expected, replacing: true)
    } throws: { ($0 as? SyncError)?.code == .changedWhileSyncing }
    #expect(try Self.carrying(id, in: folder.url) == ["Sub/" + name], "no second file")
    #expect(
      try Disk.tree(folder.url).filter { !$0.hasPrefix(".") && !$0.hasPrefix("Sub") }.isEmpty,
      "nothing left at the old name")
  }

  @Test(
    "renamed the moment the download takes its name: the download is recorded, and the file stays where the user put it"
  )
  func renamedAsPlaced() throws {
    let folder = try TemporaryDirectory()
    let id = UUID().uuidString
    try Disk.write("the text\n", to: folder.file("Trip.txt"))
    try ItemIdentity.assign(id, to: folder.file("Trip.txt"))
    try FileManager.default.createDirectory(
      at: folder.file("Work"), withIntermediateDirectories: false)
    // The file as the agent last synced it.
    let expected = [
      "": LocalScanner.member(try #require(try Sys.status(folder.file("Trip.txt").path)))
    ]
    let manifest = Self.flatManifest("the server's text\n", id: id)
    // The user renames the file at the writer's first system call after the rename that gave
    // the download its name (as a read-only share's participant did, under load): the stat of
    // the download was then read by name, found nothing, and the download went unrecorded, so
    // the next push took its bytes for the user's edit.
    let state = Mutex((placed: false, moved: false))
    let move = { @Sendable in
      try? FileManager.default.moveItem(
        at: folder.file("Trip.txt"), to: folder.file("Work/Plan.txt"))
    }
    let hook = FaultHook { call in
      let now = state.withLock { state -> Bool in
        defer { if call == "rename" { state.placed = true } }
        guard state.placed, !state.moved else { return false }
        state.moved = true
        return true
      }
      if now { move() }
      return nil
    }
    let writer = DownloadWriter(folder: folder.url, identity: id)
    let (_, written) = try Sys.$faults.withValue(hook) {
      try writer.write(
        manifest, to: "Trip.txt", chunk: { _ in Array("the server's text\n".utf8) },
        incremental: false, expecting: expected, replacing: true)
    }
    if !state.withLock({ $0.moved }) { move() }  // no call came after the rename
    let member = try #require(manifest.change.upserted.first)
    #expect(written[""]?.size == member.size, "the download is recorded")
    #expect(written[""]?.modifiedNanoseconds == 1_700_000_000_000_000_000)
    #expect(try Self.carrying(id, in: folder.url) == ["Work/Plan.txt"])
    #expect(
      try String(contentsOf: folder.file("Work/Plan.txt"), encoding: .utf8) == "the server's text\n"
    )
  }

  @Test(
    "moved before the pull: one file keeps the identity, where the user put it, with the other device's edit"
  )
  func movedFirst() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let homeA = try TemporaryDirectory()
    let homeB = try TemporaryDirectory()
    let folderA = homeA.url.appendingPathComponent("Documents")
    let folderB = homeB.url.appendingPathComponent("Documents")
    try Disk.write("first line\n", to: folderA.appendingPathComponent("Notes.txt"))
    let a = try await SyncAgent.test("A", in: homeA.url, server: server)
    let b = try await SyncAgent.test("B", in: homeB.url, server: server)
    try await a.pushLocalChanges()
    try await b.pull()
    let id = try ItemIdentity.of(folderA.appendingPathComponent("Notes.txt"))

    // B edits it; A's user moves it into a folder before A's agent scans.
    try Disk.write("first line\nfrom B\n", to: folderB.appendingPathComponent("Notes.txt"))
    try await b.pushLocalChanges()
    try FileManager.default.createDirectory(
      at: folderA.appendingPathComponent("Sub"), withIntermediateDirectories: false)
    try FileManager.default.moveItem(
      at: folderA.appendingPathComponent("Notes.txt"),
      to: folderA.appendingPathComponent("Sub/Notes.txt"))

    try await a.pull()
    #expect(
      try Self.carrying(id, in: folderA) == ["Sub/Notes.txt"], "no second file at the old name")

    // The move goes up, merged with B's edit, and comes back down.
    try await a.pushLocalChanges()
    try await a.pull()
    #expect(try Self.carrying(id, in: folderA) == ["Sub/Notes.txt"])
    #expect(
      try Disk.read(folderA.appendingPathComponent("Sub/Notes.txt")) == "first line\nfrom B\n")
    try await b.pull()
    #expect(
      try Disk.read(folderB.appendingPathComponent("Sub/Notes.txt")) == "first line\nfrom B\n")
    #expect(
      !FileManager.default.fileExists(atPath: folderB.appendingPathComponent("Notes.txt").path))
  }

  /// Two devices of alice's: A made `Notes.txt` ("first line"), B has it and pushed its edit
  /// ("from B"), which A has not pulled yet. The server stops when this is released.
  final class EditedOnB: Sendable {
    let server: SyncServerProcess
    let homes: [TemporaryDirectory]
    let a: SyncAgent
    let b: SyncAgent
    let folderA: URL
    let folderB: URL
    let notes: URL

    init(
      server: SyncServerProcess, homes: [TemporaryDirectory], a: SyncAgent, b: SyncAgent
    ) {
      (self.server, self.homes, self.a, self.b) = (server, homes, a, b)
      folderA = homes[0].url.appendingPathComponent("Documents")
      folderB = homes[1].url.appendingPathComponent("Documents")
      notes = folderA.appendingPathComponent("Notes.txt")
    }
  }

  static func editedOnB() async throws -> EditedOnB {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let homes = [try TemporaryDirectory(), try TemporaryDirectory()]
    let devices = EditedOnB(
      server: server, homes: homes,
      a: try await SyncAgent.test("A", in: homes[0].url, server: server),
      b: try await SyncAgent.test("B", in: homes[1].url, server: server))
    try Disk.write("first line\n", to: devices.notes)
    try await devices.a.pushLocalChanges()
    try await devices.b.pull()
    try Disk.write(
      "first line\nfrom B\n", to: devices.folderB.appendingPathComponent("Notes.txt"))
    try await devices.b.pushLocalChanges()
    return devices
  }

  @Test(
    "moved away during the download and back after it stopped: the other device's edit still comes, with no further edit"
  )
  func movedAwayAndBack() async throws {
    let devices = try await Self.editedOnB()
    defer { withExtendedLifetime(devices) {} }
    let (a, notes) = (devices.a, devices.notes)
    let away = notes.deletingLastPathComponent().appendingPathComponent("Notes away.txt")

    // A's user moves the document away while A downloads B's edit, after the pull found it: at
    // the download's reading of the file system clock, its first `open` through `Sys`.
    let calls = Mutex<[String]>([])
    let hook = FaultHook { call in
      let first = calls.withLock { calls in
        calls.append(call)
        return call == "open" && !calls.dropLast().contains("open")
      }
      if first { try? FileManager.default.moveItem(at: notes, to: away) }
      return nil
    }
    try await Sys.$faults.withValue(hook) { try await a.pull() }
    #expect(calls.withLock { $0.contains("open") }, "the download reached the file system clock")
    #expect(try Disk.read(away) == "first line\n", "the download stopped; nothing written over it")
    #expect(!FileManager.default.fileExists(atPath: notes.path), "nothing made at the old name")

    // Back where it was, the push finds nothing to upload: the same name, the same text.
    try FileManager.default.moveItem(at: away, to: notes)
    try await a.pushLocalChanges()
    try await a.pull()
    #expect(try Disk.read(notes) == "first line\nfrom B\n")
  }

  @Test(
    "deleted here during the download of an edit the other device then deleted: the edit is not brought back"
  )
  func deletedDuringDownloadOfADeletedEdit() async throws {
    let devices = try await Self.editedOnB()
    defer { withExtendedLifetime(devices) {} }
    let (a, b, notes, folderA) = (devices.a, devices.b, devices.notes, devices.folderA)
    let folderB = devices.folderB
    // B edited it, and now deletes it: two entries A reads in one page.
    try FileManager.default.removeItem(at: folderB.appendingPathComponent("Notes.txt"))
    try await b.pushLocalChanges()

    // A's user deletes it too, while A downloads B's edit: the download stops, and B's
    // deletion applies after it.
    let deleted = Atomic(false)
    let hook = FaultHook { call in
      if call == "open", !deleted.exchange(true, ordering: .relaxed) {
        try? FileManager.default.removeItem(at: notes)
      }
      return nil
    }
    try await Sys.$faults.withValue(hook) { try await a.pull() }
    let reached = deleted.load(ordering: .relaxed)
    #expect(reached, "the download reached the file system clock")

    // The stopped edit is older than the deletion that followed it: it is not applied again.
    try await a.pushLocalChanges()
    try await a.pull()
    #expect(!FileManager.default.fileExists(atPath: notes.path), "the deleted edit came back")
    #expect(try Disk.tree(folderA).filter { !$0.hasPrefix(".") }.isEmpty)
  }
}
