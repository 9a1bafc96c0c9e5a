import Foundation
import QuireSync
import Testing

/// What an agent sends and fetches, and when it holds back: a small edit of a large member costs
/// a few chunks each way, and a paused device syncs nothing until it resumes.
@Suite("Quire Sync transfers")
struct SyncTransferTests {
  @Test("100 bytes changed in a 64 MiB member send and fetch a few chunks, not the member")
  func largeMemberEdit() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    var bytes = Data(SyncTestSupport.random(64 << 20, seed: 64))
    try bytes.write(to: a.url("Large.bin"))
    try SyncDevice.sync(a, b)
    #expect(b.size("Large.bin") == bytes.count, "the first sync")
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    let uploaded = try a.report().uploadedBytes
    let downloaded = try b.report().downloadedBytes
    #expect(uploaded >= bytes.count && downloaded >= bytes.count, "the first sync sends it all")

    let middle = bytes.count / 2
    bytes.replaceSubrange(middle..<middle + 100, with: Data(repeating: 0x5A, count: 100))
    try bytes.write(to: a.url("Large.bin"), options: .atomic)  // a save: renamed over it
    try SyncDevice.sync(a, b)
    #expect(
      b.read("Large.bin", at: middle, count: 100) == Data(repeating: 0x5A, count: 100), "the edit")
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    // At most the chunks the edit touched (a chunk is 256 KiB at most) and their framing.
    let limit = 3 * (256 << 10)
    let sent = try a.report().uploadedBytes - uploaded
    let fetched = try b.report().downloadedBytes - downloaded
    #expect(sent > 0 && sent <= limit, "A uploaded \(sent) bytes for a 100-byte edit")
    #expect(fetched > 0 && fetched <= limit, "B downloaded \(fetched) bytes for a 100-byte edit")
  }

  @Test("a paused device syncs nothing, in either direction, until it resumes")
  func pauseAndResume() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    let b = try SyncDevice("B", server: server)
    let witness = try SyncDevice("C", server: server)
    for device in [a, b, witness] { try device.start() }
    try a.write("before", to: "Note.txt")
    try SyncDevice.sync(a, b)
    #expect(b.text("Note.txt") == "before")

    let pause = try Executables.run("quire", ["sync", "pause"], environment: b.environment)
    #expect(pause.status == 0, "\(pause.stderr)")
    #expect(try b.report().connection == .paused, "the pause returned once B's agent stopped")
    try a.write("while B is paused", to: "Note.txt")
    try b.write("written on paused B", to: "FromB.txt")
    // C, an unpaused device, hears A's edit; by then B would have as well.
    try SyncDevice.sync(a, witness)
    #expect(witness.text("Note.txt") == "while B is paused")
    try a.write("second while B is paused", to: "Second.txt")
    try SyncDevice.sync(a, witness)
    #expect(witness.text("Second.txt") != nil)
    #expect(b.text("Note.txt") == "before", "a paused device downloads nothing")
    #expect(!b.exists("Second.txt"))
    #expect(!a.exists("FromB.txt") && !witness.exists("FromB.txt"), "nor uploads anything")

    let resume = try Executables.run("quire", ["sync", "resume"], environment: b.environment)
    #expect(resume.status == 0, "\(resume.stderr)")
    try SyncDevice.sync(b, a)
    #expect(b.text("Note.txt") == "while B is paused", "it catches up")
    #expect(b.exists("Second.txt"))
    #expect(a.text("FromB.txt") == "written on paused B")
    #expect(try b.report().connection == .online)
  }

  @Test("a second agent on the same folder refuses to run, and signing out stops the agent")
  func oneAgentPerFolderUntilSignedOut() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    try a.start()
    let second = try Executables.run(
      "quire", ["sync", "run", "--folder", a.folder.path], environment: a.environment)
    #expect(second.status != 0)
    #expect(second.stderr.contains("already syncing"), "\(second.stderr)")

    let logout = try Executables.run("quire", ["sync", "logout"], environment: a.environment)
    #expect(logout.status == 0, "\(logout.stderr)")
    #expect(await eventually { a.agent?.process.hasExited == true }, "the agent stops")
    #expect(a.agent?.wait() == 0)
  }
}
