import Foundation
import Quire
import QuireSync
import QuireSyncProtocol
import Testing

@testable import QuireServer

private typealias S = SyncTestSupport

/// Names from the wire: no control character and no bidirectional override is stored, and a
/// name the server makes up (“Name 2.txt” for a clash) stays within the limits a device can
/// create.
@Suite("Hostile names", .serialized, .timeLimit(.minutes(4)))
struct HostileNameTests {
  @Test(
    "paths with control or bidirectional-override characters are refused",
    arguments: [
      "Documents/a\nb.txt", "Documents/a\rb.txt", "Documents/bell\u{7}.txt",
      "Documents/del\u{7F}.txt", "Documents/next-line\u{85}.txt",
      "Documents/invoice\u{202E}fdp.exe", "Documents/\u{2066}isolate\u{2069}.txt",
    ])
  func refused(path: String) {
    #expect(throws: SyncError.self) { try SyncPath.check(path) }
  }

  @Test(
    "ordinary names from every script are kept as they are",
    arguments: [
      "Documents/a\\b.txt", "Documents/Café.txt", "Documents/Cafe\u{301}.txt",
      "Documents/日本語.txt", "Documents/עברית.txt", "Documents/emoji 🎉.txt",
    ])
  func accepted(path: String) throws {
    try SyncPath.check(path)
  }

  @Test("the server refuses such a path and keeps a made-up name within 255 bytes")
  func serverNames() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let members = try await S.upload(["": S.bytes("bytes")], with: alice)
    await ShareTests.expect(.invalidPath) {
      _ = try await alice.commit(
        S.commit(
          "evil", path: "Documents/invoice\u{202E}fdp.exe", base: nil, kind: .file,
          upserted: members))
    }
    // A 255-byte name, taken twice: the second gets a number and must still fit.
    let long = String(repeating: "é", count: 125) + ".txt"  // 250 + 4 bytes
    #expect(long.utf8.count == 254)
    _ = try await alice.commit(
      S.commit("first", path: "Documents/" + long, base: nil, kind: .file, upserted: members))
    let second = try await alice.commit(
      S.commit("second", path: "Documents/" + long, base: nil, kind: .file, upserted: members))
    let name = try #require(second.path?.split(separator: "/").last)
    #expect(name.utf8.count <= 255 && name.hasSuffix(" 2.txt"), "\(name)")
    #expect(second.path == "Documents/\(name)", "the made-up name stays in its folder")
    try SyncPath.check(try #require(second.path))
  }

  @Test("every name Quire makes for a copy fits in 255 bytes, keeps its marker, and is free")
  func madeUpNames() {
    var generator = SystemRandomNumberGenerator()
    let pieces = ["a", "é", "日", "🎉", "👩‍👩‍👧", "e\u{301}", ".", " ", "x.y"]
    let markers: [(Int) -> String] = [
      { $0 == 1 ? "" : " \($0)" }, { $0 == 1 ? " (my changes)" : " (my changes \($0))" },
      { $0 == 1 ? " (conflicted copy)" : " (conflicted copy) \($0)" },
    ]
    for _ in 0..<2000 {
      let stem = (0..<Int.random(in: 1...140, using: &generator)).map { _ in
        pieces.randomElement(using: &generator)!
      }.joined()
      let suffix = ["", ".txt", ".mydoc", "." + String(repeating: "x", count: 250)]
        .randomElement(using: &generator)!
      let name = stem + suffix
      let marker = markers.randomElement(using: &generator)!
      let taken = Int.random(in: 0...12, using: &generator)
      var tried: [String] = []
      let made = FileName.unique(name, marker: marker) { candidate in
        tried.append(candidate)
        return tried.count <= taken
      }
      #expect(made.utf8.count <= 255, "\(made.utf8.count) bytes from \(name.debugDescription)")
      let mark = marker(taken + 1)
      #expect(mark.isEmpty || made.contains(mark), "\(made.debugDescription) lost its marker")
      #expect(Set(tried).count == tried.count, "a candidate came twice: \(tried)")
      // What fits is left alone: a short name keeps its whole stem and extension.
      if (name + marker(taken + 1)).utf8.count <= 255 {
        let (stem, suffix) = FileName.split(name)
        #expect(made == stem + marker(taken + 1) + suffix)
      }
    }
  }

  @Test("an item stored under a name the rules now refuse can still be deleted, and only it")
  func deletesOldRefusedNames() throws {
    let folder = try TemporaryDirectory()
    let store = try ServerStore(folder: folder.url)
    try store.accounts.addUser(name: "alice", password: "alice-password")
    let device = try #require(
      try store.accounts.device(token: try store.accounts.addDevice(user: "alice", name: "a").token)
    )
    let container = "iCloud.net.gacha.quire"
    func commit(_ request: CommitRequest) throws -> CommitResponse {
      try store.commits.commit(request, container: container, device: device, maximumMembers: 100)
    }
    let first = try commit(S.commit("old", path: "Documents/plain.txt", base: nil, kind: .file))
    _ = try commit(S.commit("other", path: "Documents/other.txt", base: nil, kind: .file))
    // As a server from before the rules stored it: a name with a line feed.
    let refused = "Documents/line\nfeed.txt"
    try store.backend.write { db in
      try db.execute("UPDATE items SET path = ? WHERE item = 'old'", [refused])
      try db.execute("UPDATE revisions SET path = ? WHERE item = 'old'", [refused])
    }
    // Another item, or this one under another refused name: still refused.
    for (item, path) in [("other", refused), ("old", "Documents/line\rfeed.txt")] {
      #expect(throws: SyncError.self, "\(item) at \(path.debugDescription)") {
        _ = try commit(S.commit(item, path: path, base: nil, kind: .file, deleted: true))
      }
    }
    let deleted = try commit(
      S.commit("old", path: refused, base: first.revision, kind: .file, deleted: true))
    #expect(deleted.status == .current)
    let entries = try store.commits.changes(
      container: container, user: device.user, since: 0, limit: 100
    ).entries
    #expect(entries.last { $0.item == "old" }?.deleted == true)
  }
}
