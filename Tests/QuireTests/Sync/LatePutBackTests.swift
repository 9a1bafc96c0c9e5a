import Foundation
import Quire
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// A program writes a file at the moment a download replaces it, and keeps it open: its write
/// is put back once it closes the file, on a thread of its own. Found by chance
/// (`SyncUncoordinatedWriteTests` under load): meanwhile the agent uploaded the downloaded file
/// as this device's change and recorded the merged revision, so the late put-back landed as an
/// edit of that revision and undid what the download brought: the other device's line was lost
/// on both. Here the moment is made exact: the program writes as the download renames.
@Suite("A write put back late")
struct LatePutBackTests {
  @Test("a program's write put back late is merged with the download, not laid over it")
  func latePutBackIsMerged() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    let (a, folderA) = try await PullScanCostTests.agent("A", server: server, home: home)
    let (b, folderB) = try await PullScanCostTests.agent("B", server: server, home: home)
    let notesA = folderA.appendingPathComponent("Notes.txt")
    let notesB = folderB.appendingPathComponent("Notes.txt")
    try Data("one\n".utf8).write(to: notesA)
    try await a.pushRequested()
    try await b.pull()
    try Data("from B\none\n".utf8).write(to: notesB)
    try await b.pushRequested()

    // As A's download renames the new file over A's, a program writes A's file and keeps it
    // open: its line goes to the file being replaced.
    let writer = Mutex<Int32>(-1)
    let hook = FaultHook { call in
      guard call == "rename", writer.withLock({ $0 < 0 }) else { return nil }
      let fd = open(notesA.path, O_WRONLY | O_APPEND | O_CLOEXEC)
      let line = "from A's program\n"
      _ = write(fd, line, line.utf8.count)
      writer.withLock { $0 = fd }
      return nil
    }
    try await Sys.$faults.withValue(hook) { try await a.pull() }
    let fd = writer.withLock { $0 }
    try #require(fd >= 0, "the program wrote as the download renamed")
    let id = try ItemIdentity.of(notesA)
    #expect(await a.isPuttingBack(id), "the put-back waits for the program")

    // Meanwhile A goes on: its push does not send what the download left.
    let check = try await server.client(
      "alice", device: "check", container: "iCloud.net.gacha.quire")
    let before = try await check.changes(since: 0).entries.count
    try await a.pushRequested()
    #expect(try await check.changes(since: 0).entries.count == before, "nothing sent meanwhile")

    // The program closes the file: its write is put back, then sent and merged.
    close(fd)
    #expect(
      await eventuallyAsync {
        await !a.isPuttingBack(id)
          && (try? String(contentsOf: notesA, encoding: .utf8))?.contains("from A's program")
            == true
      }, "put back")
    try await a.pushRequested()
    try await a.pull()
    try await b.pull()
    for notes in [notesA, notesB] {
      let text = try String(contentsOf: notes, encoding: .utf8)
      #expect(
        text.contains("from B") && text.contains("from A's program"), "\(notes.path): \(text)")
    }
  }
}
