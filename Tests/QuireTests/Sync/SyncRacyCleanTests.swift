import Foundation
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 27, hole 4: the agent knows a file is unchanged by its size and time. A second write of
/// the same size in the same timestamp tick as the first leaves both as they were, so a record
/// whose time is not older than the file system's time when it was taken proves nothing: its
/// contents are hashed again, as git and Syncthing do with "racily clean" files.
@Suite("Quire Sync re-reads racily clean files")
struct SyncRacyCleanTests {
  /// Writes `text` over `relative`'s bytes in place (same inode) and sets its time to `time`.
  static func rewrite(_ text: String, at url: URL, time: timespec) throws {
    let fd = open(url.path, O_WRONLY | O_TRUNC)
    try #require(fd >= 0)
    defer { close(fd) }
    let written = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress, text.utf8.count) }
    try #require(written == text.utf8.count)
    var times = [time, time]
    try #require(futimens(fd, &times) == 0)
  }

  @Test("a second write of the same size, leaving the same size and time, is still uploaded")
  func sameSizeSameTick() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    // A time an hour ahead stands for "the same tick as the agent's read": any time not before
    // the file system's time then leaves the record in doubt, and it is reproducible.
    let tick = timespec(tv_sec: time(nil) + 3600, tv_nsec: 0)
    try a.write("", to: "Notes.txt")
    try Self.rewrite("first", at: a.url("Notes.txt"), time: tick)
    #expect(await eventually { b.text("Notes.txt") == "first" })
    // Same size, same time, same inode: a stat cannot tell it from the synced record.
    try Self.rewrite("other", at: a.url("Notes.txt"), time: tick)
    #expect(
      await eventually { b.text("Notes.txt") == "other" },
      "the second write reached B: \(b.text("Notes.txt") ?? "none")")
    #expect(a.text("Notes.txt") == "other")
  }

  @Test(
    "a stat not older than the file system's time when it was taken proves nothing, on any values",
    arguments: 0..<200)
  func racyDecision(seed: Int) {
    var random = SystemRandomNumberGenerator()
    let now = Int64.random(in: 1_000_000...2_000_000, using: &random)
    let modified = now + Int64.random(in: -2...2, using: &random)
    let local = LocalItem.Member(size: seed, mode: 0o644, modifiedNanoseconds: modified)
    let hash = ContentHash(of: Array("\(seed)".utf8))
    let member = SyncedItem.Member(local: local, hash: hash, chunks: [], checkedAt: now)
    #expect(member.racy == (modified >= now))
    let record = SyncedItem(id: "i", path: "a.txt", kind: .file, revision: 1, members: ["": member])
    let found = LocalItem(id: "i", path: "a.txt", kind: .file, members: ["": local])
    #expect(record.matches(found) == !member.racy, "only a stat in no doubt is trusted")
    // Read again: the same bytes are the record's (nothing to send), other bytes are a change.
    #expect(record.hasContents(of: found, hashes: ["": hash]))
    #expect(!record.hasContents(of: found, hashes: ["": ContentHash(of: [1, 2, 3])]))
    var touched = found
    touched.members[""]?.modifiedNanoseconds += 1
    #expect(!record.hasContents(of: touched, hashes: ["": hash]), "a new time is sent")
    #expect(
      !SyncedItem.Member(local: .inCloud, hash: hash, chunks: [], checkedAt: .min).racy,
      "a member in the cloud has no stat to doubt")
  }
}
