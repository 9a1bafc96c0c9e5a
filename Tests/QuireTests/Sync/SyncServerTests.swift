import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// `quire server` in its own process, over a real loopback socket, driven by `SyncClient`s of
/// several devices.
@Suite("Quire Sync server")
struct SyncServerTests {
  typealias S = SyncTestSupport

  @Test(
    "a package committed on one device is read back whole by another device of the account",
    arguments: ServerBackend.allCases)
  func commitAndReadBack(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try await server.client("alice", device: "laptop")
    let b = try await server.client("alice", device: "desktop")
    let members = ["text.txt": S.bytes("Hello"), "image.png": S.random(300_000, seed: 1)]
    let manifest = try await S.upload(members, with: a)
    let answer = try await a.commit(
      S.commit("item-1", path: "Documents/Trip.mydoc", base: nil, upserted: manifest))
    #expect(answer.status == .current && answer.current == answer.revision)

    let page = try await b.changes(since: 0)
    #expect(page.entries.map(\.item) == ["item-1"])
    #expect(page.entries.first?.path == "Documents/Trip.mydoc")
    #expect(page.entries.first?.isInDocumentsScope == true)
    let read = try await b.manifest(item: "item-1", revision: answer.revision)
    #expect(read.since == nil)
    #expect(read.change.upserted.map(\.path) == ["image.png", "text.txt"])
    let image = try #require(read.change.upserted.first)
    #expect(image.chunks.count >= 2, "300 KB is cut into several chunks")
    let chunks = try await b.fetchChunks(image.chunks.map(\.hash))
    #expect(image.chunks.flatMap { chunks[$0.hash] ?? [] } == members["image.png"])
  }

  @Test(
    "an edit commits and downloads only the members it changed, whatever the package's size",
    arguments: ServerBackend.allCases)
  func deltasFollowTheChange(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try await server.client("alice")
    let b = try await server.client("alice")
    var members: [String: [UInt8]] = [:]
    for index in 0..<1000 { members["m/\(index).txt"] = S.bytes("member \(index)") }
    let first = try await a.commit(
      S.commit(
        "big", path: "Documents/Big.mydoc", base: nil,
        upserted: try await S.upload(members, with: a)))
    let edited = try await S.upload(["m/7.txt": S.bytes("edited")], with: a)
    let second = try await a.commit(
      S.commit(
        "big", path: "Documents/Big.mydoc", base: first.revision, upserted: edited,
        removed: ["m/8.txt"]))
    #expect(second.status == .current)

    let delta = try await b.manifest(item: "big", revision: second.revision, since: first.revision)
    #expect(delta.since == first.revision)
    #expect(delta.change.upserted.map(\.path) == ["m/7.txt"])
    #expect(delta.change.removed == ["m/8.txt"])
    let whole = try await b.manifest(item: "big", revision: second.revision)
    #expect(whole.change.upserted.count == 999)
    let old = try await b.manifest(item: "big", revision: first.revision)
    #expect(old.change.upserted.count == 1000, "an older revision is still whole")
    #expect(
      old.change.upserted.first { $0.path == "m/7.txt" }?.hash
        == ContentHash(of: S.bytes("member 7")))
  }

  @Test(
    "a rename sends no bytes, and a deletion is a revision that empties the manifest",
    arguments: ServerBackend.allCases)
  func renameAndDelete(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try await server.client("alice")
    let first = try await a.commit(
      S.commit(
        "p", path: "Documents/Old.mydoc", base: nil,
        upserted: try await S.upload(["text.txt": S.bytes("x")], with: a)))
    let renamed = try await a.commit(
      S.commit("p", path: "Documents/Folder/New.mydoc", base: first.revision))
    let delta = try await a.manifest(item: "p", revision: renamed.revision, since: first.revision)
    #expect(delta.change.isEmpty)
    #expect(delta.path == "Documents/Folder/New.mydoc")
    #expect(try await a.manifest(item: "p", revision: renamed.revision).change.upserted.count == 1)
    let deleted = try await a.commit(
      S.commit("p", path: "Documents/Folder/New.mydoc", base: renamed.revision, deleted: true))
    let gone = try await a.manifest(item: "p", revision: deleted.revision)
    #expect(gone.deleted && gone.change.upserted.isEmpty)
    #expect(
      try await a.changes(since: 0).entries.map(\.path) == [
        "Documents/Old.mydoc", "Documents/Folder/New.mydoc", "Documents/Folder/New.mydoc",
      ])
  }

  @Test(
    "a commit sent again after a lost answer is committed once and answered the same",
    arguments: ServerBackend.allCases)
  func retriedCommitIsIdempotent(backend: ServerBackend) async throws {
    let server = try await SyncServerProcess.started(backend: backend)
    let a = try await server.client("alice")
    let request = S.commit(
      "i", path: "Documents/A.txt", base: nil, kind: .file,
      upserted: try await S.upload(["": S.bytes("a")], with: a))
    let first = try await a.commit(request)
    let again = try await a.commit(request)
    #expect(first == again)
    #expect(try await a.changes(since: 0).entries.count == 1)
  }

  @Test(
    "an upload's chunks go into one pack file, and chunks stored loose by an older server still read"
  )
  func packsAndLooseChunks() async throws {
    let server = try await SyncServerProcess.started()
    let a = try await server.client("alice")
    let members = (0..<50).map { ("m\($0).txt", S.random(3000, seed: UInt64($0))) }
    let manifest = try await S.upload(Dictionary(uniqueKeysWithValues: members), with: a)
    let blobs = server.data.url.appendingPathComponent("blobs")
    let packs = try FileManager.default.contentsOfDirectory(
      atPath: blobs.appendingPathComponent("packs").path)
    #expect(packs.count == 1, "50 chunks in one upload are one pack, not 50 files: \(packs)")
    _ = try await a.commit(S.commit("p", path: "Documents/P.mydoc", base: nil, upserted: manifest))

    // Rewrite one chunk as an older server stored it: a file of its own, no pack.
    server.kill()
    let loose = try #require(manifest.first { $0.path == "m7.txt" }?.chunks.first?.hash)
    let folder = blobs.appendingPathComponent(String(loose.hex.prefix(2)))
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try Data(S.random(3000, seed: 7)).write(to: folder.appendingPathComponent(loose.hex))
    let database = server.data.url.appendingPathComponent("server.sqlite").path
    try Python.run(
      """
      import sqlite3, sys
      db = sqlite3.connect(sys.argv[1])
      db.execute("UPDATE chunks SET pack = NULL, packOffset = NULL WHERE hash = ?", (sys.argv[2],))
      db.commit()
      """, [database, loose.hex])
    try server.restart()
    let b = try await server.client("alice", device: "other")
    let hashes = manifest.flatMap { $0.chunks.map(\.hash) }
    let fetched = try await b.fetchChunks(hashes)
    for (path, bytes) in members {
      let member = try #require(manifest.first { $0.path == path })
      #expect(member.chunks.flatMap { fetched[$0.hash] ?? [] } == bytes, "\(path)")
    }
  }
}
