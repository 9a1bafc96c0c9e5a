import Foundation
import QuireCore
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// `quire sync wait`: a device's agent answers once everything that happened before the wait is
/// synced, so a script (or a test) learns that from an event, never from time. Real `quire sync
/// run` processes against one server; each check runs right after the waits return, with no
/// retry: a wait that answered early fails it.
@Suite("Waiting until a device is in sync", .timeLimit(.minutes(4)))
struct SyncWaitTests {
  @Test("after a wait on the device that changed and one on the other, every change is there")
  func changesArriveAfterWaits() async throws {
    let (server, a, b) = try await SyncDevice.startedPair()
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    for round in 0..<8 {
      let (writer, reader) = round % 2 == 0 ? (a, b) : (b, a)
      let name = "Note \(round % 3).txt"
      try writer.write("round \(round)\n", to: name)
      try writer.sync()
      try reader.sync()
      #expect(reader.text(name) == "round \(round)\n", "round \(round)")
    }
    try FileManager.default.createDirectory(at: a.url("Folder"), withIntermediateDirectories: true)
    try FileManager.default.moveItem(at: a.url("Note 0.txt"), to: a.url("Folder/Moved.txt"))
    try a.sync()
    try b.sync()
    #expect(b.text("Folder/Moved.txt") == "round 6\n" && !b.exists("Note 0.txt"))
    try FileManager.default.removeItem(at: b.url("Note 1.txt"))
    try b.sync()
    try a.sync()
    #expect(!a.exists("Note 1.txt"), "the deletion reached A")
    #expect(try a.hiddenLeftovers().isEmpty && b.hiddenLeftovers().isEmpty)
  }

  @Test(
    "a wait says at once that no agent runs or that syncing is paused, and says when the folder is not in sync in time"
  )
  func refusals() async throws {
    let server = try await onThread { try SyncServerProcess() }
    let a = try SyncDevice("A", server: server)
    let started = ContinuousClock.now
    var run = try a.quire(["sync", "wait", "--folder", a.folder.path, "--timeout", "60"])
    #expect(run.status != 0 && run.stderr.contains("No agent syncs"), "\(run.stderr)")
    #expect(ContinuousClock.now - started < .seconds(30), "it did not wait for the timeout")
    #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")

    try a.start()
    try a.write("first\n", to: "First.txt")
    try a.sync()
    try a.pause()
    run = try a.quire(["sync", "wait", "--folder", a.folder.path, "--timeout", "60"])
    #expect(run.status != 0 && run.stderr.contains("paused"), "\(run.stderr)")
    try a.pause(false)
    try a.sync()

    // The server gone, a change cannot be uploaded: the wait ends at its timeout, saying so.
    server.kill()
    try a.write("second\n", to: "Second.txt")
    run = try a.quire(["sync", "wait", "--folder", a.folder.path, "--timeout", "2"])
    #expect(run.status != 0 && run.stderr.contains("not in sync"), "\(run.stderr)")
    // Back, the change goes up; the timed-out wait's request was taken back, and the agent's
    // own requests are gone once answered.
    try server.restart()
    try a.sync()
    let left = try a.hiddenLeftovers()
    #expect(left.isEmpty, "\(left)")
  }

  @Test(
    "a wait covers the shares: a change in a shared folder on either side is on the other after both wait"
  )
  func sharesAfterWaits() async throws {
    let (server, a, b) = try await SharedFolderDeviceTests.devices()
    defer { withExtendedLifetime(server) {} }
    let shared = SharedFolderDeviceTests.shared
    let share = try a.quire(["share", a.url("Projects").path, "--with", "bob", "--role", "write"])
    try #require(share.status == 0, "\(share.stderr)")
    try b.sync()
    #expect(b.text(shared + "/Plan.txt") == "the plan\n", "the share arrived with the wait")
    for round in 0..<4 {
      try a.write("alice's round \(round)\n", to: "Projects/Plan.txt")
      try a.sync()
      try b.sync()
      #expect(b.text(shared + "/Plan.txt") == "alice's round \(round)\n")
      // Enough that the share's agent is still uploading when the drive's has caught up.
      for index in 0..<100 {
        try b.write("bob's round \(round)\n", to: shared + "/Bob \(round)/\(index).txt")
      }
      try b.sync()
      try a.sync()
      let arrived = (0..<100).filter {
        a.text("Projects/Bob \(round)/\($0).txt") == "bob's round \(round)\n"
      }
      #expect(arrived.count == 100, "round \(round): \(arrived.count) of 100 arrived")
    }
    #expect(try a.hiddenLeftovers().isEmpty && b.hiddenLeftovers().isEmpty)
  }

  @Test(
    "a wait follows the shares: one made, renamed or revoked before it is there, moved or gone when it returns"
  )
  func sharesFollowedByWaits() async throws {
    let (server, a, b) = try await SharedFolderDeviceTests.devices()
    defer { withExtendedLifetime(server) {} }
    let folder = SyncAgent.sharedFolderName
    var name = "Projects"
    for round in 0..<3 {
      let share = try a.quire(["share", a.url(name).path, "--with", "bob", "--role", "write"])
      try #require(share.status == 0, "\(share.stderr)")
      try b.sync()
      #expect(b.text(folder + "/\(name)/Notes/Idea.txt") == "an idea\n", "round \(round): made")

      let renamed = "Projects \(round)"
      try FileManager.default.moveItem(at: a.url(name), to: a.url(renamed))
      try a.sync()
      try b.sync()
      #expect(
        b.text(folder + "/\(renamed)/Plan.txt") == "the plan\n"
          && !b.exists(folder + "/\(name)"),
        "round \(round): renamed: \(FileManager.default.subpaths(atPath: b.url(folder).path) ?? [])"
      )
      name = renamed

      let stopped = try a.quire(["unshare", a.url(name).path, "--with", "bob"])
      try #require(stopped.status == 0, "\(stopped.stderr)")
      try b.sync()
      #expect(!b.exists(folder + "/\(name)"), "round \(round): revoked")
    }
    #expect(try a.hiddenLeftovers().isEmpty && b.hiddenLeftovers().isEmpty)
  }
}

/// The answer's two halves, in one process: a request whose waiter still holds it is answered,
/// one whose waiter is gone (its lock released, as the kernel does when a process dies) is
/// removed, so a killed `quire sync wait` leaves nothing behind.
@Suite("Answering a wait's request")
struct SyncBarrierReplyTests {
  @Test("a held request is renamed to its answer; a request no one holds is removed")
  func replyFollowsTheLock() throws {
    let folder = try TemporaryDirectory()
    let held = SyncBarrier.requestName()
    let fd = open(folder.file(held).path, O_RDONLY | O_CREAT | O_CLOEXEC, 0o600)
    try #require(fd >= 0)
    defer { close(fd) }
    #expect(flock(fd, LOCK_SH) == 0)
    #expect(Sys.isFlocked(folder.file(held).path) == true, "the kernel's list shows the lock")
    SyncBarrier.reply(to: held, in: folder.url.path)
    #expect(
      FileManager.default.fileExists(atPath: folder.file(SyncBarrier.answerName(for: held)).path))
    #expect(!FileManager.default.fileExists(atPath: folder.file(held).path))

    let orphan = SyncBarrier.requestName()
    try Data().write(to: folder.file(orphan))
    #expect(Sys.isFlocked(folder.file(orphan).path) == false)
    SyncBarrier.reply(to: orphan, in: folder.url.path)
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == [
        SyncBarrier.answerName(for: held)
      ])
  }
}
