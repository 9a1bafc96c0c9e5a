import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// A save of a package writes its members one after another; the agent's scan, which does not
/// coordinate, can see the first written and not the second. What it uploads must still be one
/// state of the package: found by chance when a coordinated reader on another device saw
/// `left.txt` of one save beside `right.txt` of the one before ("a reader on B never sees a
/// package mixed from two revisions").
@Suite("Uploads read one state of a package")
struct TornUploadTests {
  @Test(
    "a scan that saw one member of a save and not the other still uploads both: the members are listed again inside the coordinated read"
  )
  func halfSeenSave() async throws {
    let home = try TemporaryDirectory()
    let folder = home.url.appendingPathComponent("Documents")
    let package = folder.appendingPathComponent("Pair.mydoc")
    let left = package.appendingPathComponent("left.txt")
    let right = package.appendingPathComponent("right.txt")
    try Disk.write("round 0", to: left)
    try Disk.write("round 0", to: right)
    let synced = try #require(LocalScanner.item(at: "Pair.mydoc", root: folder))
    // As last synced: both members proven by their stats.
    let base = SyncedItem(
      id: synced.id, path: synced.path, kind: .package, revision: 1,
      members: synced.members.mapValues {
        SyncedItem.Member(local: $0, hash: ContentHash(of: Data("round 0".utf8)), chunks: [])
      })
    // The save's first member, then the scan, then the save's second member.
    try Disk.write("round 1 (left)", to: left)
    let scanned = try #require(LocalScanner.item(at: "Pair.mydoc", root: folder))
    #expect(base.members["right.txt"]?.proves(scanned.members["right.txt"]!) == true)
    try Disk.write("round 1 (right)", to: right)
    try Disk.write("new", to: package.appendingPathComponent("added.txt"))

    let agent = try Self.agent(of: folder, in: home)
    let prepared = try await agent.prepare(scanned, base: base)
    #expect(prepared.snapshots.map(\.path) == ["added.txt", "left.txt", "right.txt"])
    #expect(prepared.item.members.keys.sorted() == ["added.txt", "left.txt", "right.txt"])
    #expect(
      prepared.request.change.upserted.map(\.path).sorted() == [
        "added.txt", "left.txt", "right.txt",
      ])
  }

  /// Found by chance (`MovedShareTests`, under load): `cp -a` of a shared document made the
  /// copy, the scan gave the unmarked file an identity of its own, then cp wrote the original's
  /// identity over it. The item was committed under the scan's identity while the file carried
  /// the other, and after a restart the copy was uploaded again as "Trip copy 2.txt".
  @Test(
    "a file whose identity changed between the scan and the read is not uploaded under the scan's")
  func identityChangedBeforeTheRead() async throws {
    let home = try TemporaryDirectory()
    let folder = home.url.appendingPathComponent("Documents")
    let copy = folder.appendingPathComponent("Trip copy.txt")
    try Disk.write("plans\n", to: copy)  // cp's new file, its bytes in, not yet marked
    let scanned = try #require(LocalScanner.item(at: "Trip copy.txt", root: folder))
    let original = UUID().uuidString
    try ItemIdentity.assign(original, to: copy)  // cp copies the extended attributes
    let agent = try Self.agent(of: folder, in: home)
    await #expect(throws: SyncError.self) { try await agent.prepare(scanned, base: nil) }
    var marked = scanned
    marked.id = original
    #expect(try await agent.prepare(marked, base: nil).request.item == original)
  }

  @Test("a package removed between the scan and the read is not uploaded as an empty package")
  func removedBeforeTheRead() async throws {
    let home = try TemporaryDirectory()
    let folder = home.url.appendingPathComponent("Documents")
    let package = folder.appendingPathComponent("Gone.mydoc")
    try Disk.write("text", to: package.appendingPathComponent("text.txt"))
    let scanned = try #require(LocalScanner.item(at: "Gone.mydoc", root: folder))
    try FileManager.default.removeItem(at: package)
    let agent = try Self.agent(of: folder, in: home)
    await #expect(throws: SyncError.self) { try await agent.prepare(scanned, base: nil) }
  }

  /// Found by chance (`SyncCollectionTests`, PostgreSQL, in a full run): a file created empty
  /// and then written (Foundation's non-atomic write) was scanned between the two. The upload
  /// read the bytes but recorded the scan's stat, so the next scan could not prove the file and
  /// the same bytes were committed again: two identical versions.
  @Test("an upload records the stat of the bytes it read, not the scan's, and sends them once")
  func writtenBetweenTheScanAndTheRead() async throws {
    let home = try TemporaryDirectory()
    let folder = home.url.appendingPathComponent("Documents")
    let file = folder.appendingPathComponent("Note.txt")
    try Disk.write("", to: file)  // created; its bytes not written yet
    let scanned = try #require(LocalScanner.item(at: "Note.txt", root: folder))
    let handle = try FileHandle(forWritingTo: file)  // the same file: its identity stays
    try handle.write(contentsOf: Data("first\n".utf8))
    try handle.close()

    let agent = try Self.agent(of: folder, in: home)
    let first = try await agent.prepare(scanned, base: nil)
    #expect(first.request.change.upserted.first?.size == 6)
    let record = first.record(revision: 1)
    #expect(record.members[""]?.local.size == 6)
    let now = try #require(LocalScanner.item(at: "Note.txt", root: folder))
    // The record proves the file, or (written in the tick of the read) its bytes are read
    // again and found the same: either way nothing is sent again.
    if !record.matches(now) {
      #expect(try await agent.prepare(now, base: record).isUnchanged)
    }
  }

  /// The upload reads a chunk's bytes back from the open file without hashing them again: the
  /// server hashes what it stores. A writer that changed the file in place after it was read
  /// must still never have other bytes stored, or committed, under the hashes that were read.
  @Test(
    "a member written in place after it was read is refused by the server and read again, never sent as the hashes read"
  )
  func writtenInPlaceAfterTheRead() async throws {
    let server = try await SyncServerProcess.started()
    let home = try TemporaryDirectory()
    let (agent, folder, _) = try await inProcessAgent("writer", server: server, home: home)
    let file = folder.appendingPathComponent("Big.bin")
    let before = (0..<(300 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
    try Data(before).write(to: file)
    let scanned = try #require(LocalScanner.item(at: "Big.bin", root: folder))
    let prepared = try await agent.prepare(scanned, base: nil)
    #expect(prepared.sources.count > 1, "a member of several chunks")
    // Another program writes into the open file, same size, new bytes.
    let writer = try FileHandle(forWritingTo: file)
    try writer.write(contentsOf: Data(repeating: 0x5A, count: before.count))
    try writer.close()

    do {
      try await agent.send(Array(prepared.sources.keys), from: prepared.sources)
      Issue.record("bytes written in place were sent under the hashes read before them")
    } catch let error as SyncError {
      #expect(error.code == .changedWhileSyncing)
      #expect(error.message.contains(file.path))
    }
    let client = try await server.client("alice", container: "iCloud.net.gacha.quire")
    #expect(
      try await client.missingChunks(Array(prepared.sources.keys)).count
        == prepared.sources.count, "the server stored none of the refused body's chunks")
    // Read again, the item syncs as it is now.
    let now = try #require(LocalScanner.item(at: "Big.bin", root: folder))
    try await agent.upload(now, base: nil)
    let other = try await inProcessAgent("reader", server: server, home: home)
    try await other.agent.pull()
    let arrived = try Data(contentsOf: other.folder.appendingPathComponent("Big.bin"))
    #expect(arrived.count == before.count && arrived.allSatisfy { $0 == 0x5A })
  }

  /// An agent of `folder` whose server is never reached: these tests only prepare uploads.
  static func agent(of folder: URL, in home: TemporaryDirectory) throws -> SyncAgent {
    try SyncAgent(
      settings: SyncSettings(
        server: URL(string: "http://127.0.0.1:9")!, user: "alice", device: "test",
        token: "unused", container: "iCloud.net.gacha.mydoc"),
      folder: folder, stateFile: home.url.appendingPathComponent("state.sqlite"))
  }
}
