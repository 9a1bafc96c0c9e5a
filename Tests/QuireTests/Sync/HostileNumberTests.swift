import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

private typealias S = SyncTestSupport

/// Numbers from the wire: a modification time or a mode no file system holds is refused by the
/// server with `invalidManifest`, and nothing converts such a value by trapping, so one commit
/// cannot crash the server (a public link's archive) or every device of the other side.
@Suite("Hostile numbers", .serialized, .timeLimit(.minutes(4)))
struct HostileNumberTests {
  @Test(
    "the server refuses times a device cannot keep (past 2262) and modes beyond permission bits")
  func serverRefuses() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let alice = try await server.client("alice")
    let good = try await S.upload(["": S.bytes("a diary")], with: alice)[0]
    let refused: [(String, (inout ManifestMember) -> Void)] = [
      ("modified 1e300", { $0.modified = 1e300 }),
      ("modified -1e300", { $0.modified = -1e300 }),
      ("modified in year 2300", { $0.modified = 10_413_792_000 }),
      ("modified in year 9999", { $0.modified = 253_402_300_799 }),
      ("mode 0o6755 (set-uid, set-gid)", { $0.mode = 0o6755 }),
      ("mode 0o1777 (sticky)", { $0.mode = 0o1777 }),
      ("mode -1", { $0.mode = -1 }),
      ("mode Int.max", { $0.mode = Int.max }),
    ]
    for (what, spoil) in refused {
      var member = good
      spoil(&member)
      do {
        _ = try await alice.commit(
          S.commit("diary", path: "Documents/Diary.txt", base: nil, kind: .file, upserted: [member])
        )
        Issue.record("a member with \(what) was stored")
      } catch {
        #expect(error.code == .invalidManifest, "\(what): \(error)")
      }
    }
    // Nothing was stored, and the server is still up: the good member commits.
    #expect(try await alice.changes(since: 0).entries.isEmpty)
    var late = good
    late.modified = 9_223_372_035
    late.mode = 0o755
    let committed = try await alice.commit(
      S.commit("diary", path: "Documents/Diary.txt", base: nil, kind: .file, upserted: [late]))
    #expect(committed.revision > 0)
  }

  @Test("a device never sends a set-uid bit or an out-of-range time of its own files")
  func deviceSendsPermissionBitsOnly() {
    let hash = ContentHash(of: [])
    var member = ManifestMember(
      path: "a", size: 0, mode: 0o6755, modified: 1e300, hash: hash, chunks: [])
    #expect(member.permissions == 0o755)
    #expect(member.safeModified == ManifestMember.modificationTimes.upperBound)
    member.modified = -.infinity
    #expect(member.safeModified == ManifestMember.modificationTimes.lowerBound)
    member.modified = .nan
    #expect(member.safeModified == 0)
    member.mode = -1
    #expect(member.permissions == 0o777)
  }

  @Test("dates no file system holds convert without trapping, in files and archives")
  func libraryConversions() throws {
    let directory = try TemporaryDirectory()
    let dates = [1e300, -1e300, .infinity, -.infinity, .nan, 253_402_300_800, 10_413_792_000].map {
      Date(timeIntervalSince1970: $0)
    }
    for date in dates {
      let time = date.timespec
      #expect(time.tv_nsec >= 0 && time.tv_nsec < 1_000_000_000)
    }
    let archive = directory.url.appendingPathComponent("odd.zip")
    var writer = try ArchiveWriter(path: archive.path)
    for (index, date) in dates.enumerated() {
      try writer.addFile("odd/\(index).txt", contents: Data("x".utf8), mode: 0o644, date: date)
    }
    try writer.finish()
    #expect(try Data(contentsOf: archive).count > 0)
  }

  @Test("a local file dated past 2262 is scanned without trapping")
  func farFutureFile() throws {
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("future.txt")
    try Data("from the future".utf8).write(to: file)
    var times = [
      timespec(tv_sec: 10_413_792_000, tv_nsec: 5), timespec(tv_sec: 10_413_792_000, tv_nsec: 5),
    ]
    #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
    var info = stat()
    #expect(lstat(file.path, &info) == 0)
    // What the agent's scan computes (as the library's signatures do): saturated, not a trap.
    #expect(LocalScanner.member(info).modifiedNanoseconds == .max)
    var past = info
    past.st_mtim.tv_sec = -10_413_792_000
    #expect(LocalScanner.member(past).modifiedNanoseconds == .min)
  }
}
