import Foundation
import Testing

@testable import QuireSync

/// `quire sync pause` stops the agents after the step in flight, and returns once they have
/// stopped: a lock each running agent holds shared tells it, never a quiet moment.
@Suite("Pausing sync", .timeLimit(.minutes(4)))
struct SyncPauseTests {
  @Test(
    "a pause returns once the agent has stopped after the upload in flight; while the upload is held, it says so at its timeout; the resume syncs it all"
  )
  func pauseWaitsForTheStepInFlight() async throws {
    let (server, toA, _, a, b) = try SyncInterruptionTests.devices()
    defer { withExtendedLifetime(server) {} }  // the server runs until the test ends
    let bytes = Data(SyncTestSupport.random(4 << 20, seed: 21))
    toA.hold(up: toA.bytes.up + (1 << 20))
    // Whole at once (renamed into place): its upload is one step, whatever the load.
    try bytes.write(to: a.url("Large.bin"), options: .atomic)
    #expect(await toA.stalled(), "the upload is under way")

    // The upload cannot go on while the proxy holds it, whatever the time: the pause cannot
    // have stopped the agent when its timeout passes.
    var run = try a.quire(["sync", "pause", "--timeout", "1"])
    #expect(run.status != 0 && run.stderr.contains("still finishing a step"), "\(run.stderr)")
    #expect(run.stderr.split(separator: "\n").count == 1, "one line: \(run.stderr)")
    toA.release()
    run = try a.quire(["sync", "pause"])
    #expect(run.status == 0, "\(run.stderr)")
    #expect(try a.report().connection == .paused)
    // Whether the held upload then succeeded is the server's to say: under load, a body held
    // past the server's grace is cut, and a step that failed while paused is tried again at
    // the resume. Either way nothing is lost.
    try a.write("while paused\n", to: "Paused.txt")
    try a.pause(false)
    try SyncDevice.sync(a, b)
    #expect(FileManager.default.contents(atPath: b.url("Large.bin").path) == bytes)
    #expect(b.text("Paused.txt") == "while paused\n", "the resume synced what was written")
  }

  @Test("a pause with no agent running returns at once, and a started agent stays paused")
  func pauseWithNoAgent() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    try a.pause()
    try a.start()
    #expect(try a.report().connection == .paused)
    try a.pause()  // a second pause, with the agent paused, returns too
    try a.pause(false)
    try a.write("after the resume\n", to: "Note.txt")
    try a.sync()
    #expect(try a.report().connection == .online)
  }
}
