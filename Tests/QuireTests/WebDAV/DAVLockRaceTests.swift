import Foundation
import QuireSyncProtocol
import QuireSyncSimulation
import Testing

@testable import QuireServer

/// A WebDAV write checks its locks twice: before a PUT's body is read (to answer 423 at once)
/// and again inside the commit's own transaction. The second check is what keeps a lock taken
/// while the body arrived: these tests take the lock between the two, as a second client can.
@Suite("WebDAV locks checked in the commit's transaction")
struct DAVLockRaceTests {
  /// A store with alice, her device, a chunk, and "Documents/plan.txt" committed by the device.
  struct Drive {
    let folder: TemporaryDirectory
    let store: ServerStore
    let device: AuthenticatedDevice
    let member: ManifestMember
    let revision: Int64

    init() throws {
      folder = try TemporaryDirectory()
      store = try ServerStore(folder: folder.url)
      try store.accounts.addUser(name: "alice", password: "alice-password")
      let token = try store.accounts.addDevice(user: "alice", name: "laptop").token
      device = try #require(try store.accounts.device(token: token))
      let bytes = Array("the plan, as the laptop saved it\n".utf8)
      let hash = ContentHash(of: bytes)
      var body: [UInt8] = []
      ChunkFrames.append(hash: hash, bytes: bytes, to: &body)
      _ = try store.chunks.storeChunks(user: device.user, body: body, maximumChunk: 262_144)
      let member = ManifestMember(
        path: "", size: bytes.count, mode: 0o644, modified: 1_700_000_000, hash: hash,
        chunks: [ChunkReference(hash: hash, size: bytes.count)])
      self.member = member
      revision = try store.commits.commit(
        Self.edit(member, "first", item: "plan", path: "Documents/plan.txt", base: nil),
        container: DAVStore.container, device: device, maximumMembers: 100
      ).revision
    }

    /// A commit of the file (the same bytes: only the lock matters here).
    func edit(_ commit: String, item: String = "plan", path: String, base: Int64?)
      -> CommitRequest
    {
      Self.edit(member, commit, item: item, path: path, base: base)
    }

    static func edit(
      _ member: ManifestMember, _ commit: String, item: String, path: String, base: Int64?
    ) -> CommitRequest {
      CommitRequest(
        commit: commit, item: item, kind: .file, path: path, base: base, deleted: false,
        change: ManifestChange(upserted: [member], removed: []))
    }

    /// Takes a lock on `path` (a drive path such as "Documents/plan.txt").
    func lock(_ token: String, _ path: String, deep: Bool = false, exclusive: Bool = true)
      throws
    {
      let taken = try store.dav.take(
        DAVLock(
          token: token, path: DAVPath(stored: path), deep: deep, exclusive: exclusive,
          owner: "<D:href>bob</D:href>", timeout: 600,
          expires: Date().timeIntervalSince1970 + 600), drive: .own(device.user))
      #expect(taken == nil, "the lock was refused by \(String(describing: taken))")
    }

    func commit(_ request: CommitRequest, locks: CommitLocks) throws(SyncError) -> CommitResponse {
      try store.commits.commit(
        [request], container: DAVStore.container, device: device, maximumMembers: 100,
        locks: locks
      ).answers[0]
    }

    /// The code a WebDAV write of `request` holding no lock is refused with; nil if committed.
    func refusal(_ request: CommitRequest) -> SyncError.Code? {
      do {
        _ = try commit(request, locks: .holding([]))
        return nil
      } catch { return error.code }
    }

    func current(_ item: String = "plan") throws -> Int64? {
      try store.dav.read { db in
        let container = try #require(try DAVStore.containerID(db, drive: .own(device.user)))
        return try db.value(
          Int64.self, "SELECT current FROM items WHERE container = ? AND item = ?",
          [container, item])
      }
    }
  }

  @Test("a lock taken after a PUT was checked refuses it (423), and holding it lets it through")
  func lockTakenDuringAWrite() throws {
    let drive = try Drive()
    // The PUT was checked with no lock in the way (it submitted none); then another client locks.
    try drive.lock("urn:uuid:other", "Documents/plan.txt")
    let write = drive.edit("webdav-1", path: "Documents/plan.txt", base: drive.revision)
    do {
      _ = try drive.commit(write, locks: .holding([]))
      Issue.record("a write that does not hold the lock was committed")
    } catch {
      #expect(error.code == .locked)
      #expect(error.code.httpStatus == 423)
      #expect(error.message.contains("/plan.txt"), "\(error.message)")
    }
    #expect(try drive.current() == drive.revision, "nothing was written over the lock")
    // The holder's own write passes, in the same transaction's check.
    let answer = try drive.commit(
      drive.edit("webdav-2", path: "Documents/plan.txt", base: drive.revision),
      locks: .holding(["urn:uuid:other"]))
    #expect(answer.status == .current)
    #expect(try drive.current() == answer.revision)
  }

  @Test("a depth-0 lock on a folder refuses a new file in it and a move out of it, not an edit")
  func folderMembership() throws {
    let drive = try Drive()
    try drive.lock("urn:uuid:folder", "Documents")
    let created = drive.edit("new", item: "new", path: "Documents/new.txt", base: nil)
    #expect(drive.refusal(created) == .locked)
    #expect(try drive.current("new") == nil)
    let moved = drive.edit("moved", path: "Documents/Elsewhere plan.txt", base: drive.revision)
    #expect(drive.refusal(moved) == .locked)
    // An edit in place changes no folder's membership: a depth-0 lock does not cover it.
    let edited = try drive.commit(
      drive.edit("edited", path: "Documents/plan.txt", base: drive.revision),
      locks: .holding([]))
    #expect(edited.status == .current)
  }

  @Test("which lock blocks a write: exclusive ones not held, shared ones unless one is held")
  func blockingRule() {
    func lock(_ token: String, exclusive: Bool) -> DAVLock {
      DAVLock(
        token: token, path: DAVPath(stored: "Documents/x"), deep: false, exclusive: exclusive,
        owner: "", timeout: 60, expires: 0)
    }
    var random = SeededGenerator(seed: 29)
    for _ in 0..<500 {
      let locks = (0..<Int.random(in: 0...4, using: &random)).map { index in
        lock("t\(index)", exclusive: Bool.random(using: &random))
      }
      let submitted = Set(locks.map(\.token).filter { _ in Bool.random(using: &random) })
      let blocking = DAVLock.blocking(locks, submitted: submitted)
      let exclusiveNotHeld = locks.contains { $0.exclusive && !submitted.contains($0.token) }
      let shared = locks.filter { !$0.exclusive }
      let sharedNotHeld = !shared.isEmpty && !shared.contains { submitted.contains($0.token) }
      #expect((blocking != nil) == (exclusiveNotHeld || sharedNotHeld), "\(locks) \(submitted)")
      if let blocking { #expect(locks.contains(blocking)) }
    }
  }
}
