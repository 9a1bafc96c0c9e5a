import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// `quire sync resume` just as an agent starts: the agent read the pause marker, and the marker
/// was removed before its watch of the settings folder held. No event ever came, and the agent
/// stayed paused until something else touched that folder (found by `scripts/torture sync
/// --seed 8`: an agent restarted while paused, resumed at once, synced nothing for minutes).
@Suite("Resumed as the agent starts")
struct ResumedAtStartTests {
  @Test("the marker removed right after the agent read it: the agent resumes and syncs")
  func resumedBetweenReadAndWatch() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let homes = [try TemporaryDirectory(), try TemporaryDirectory()]
    let marker = homes[0].url.appendingPathComponent("config/sync.paused")
    try FileManager.default.createDirectory(
      at: marker.deletingLastPathComponent(), withIntermediateDirectories: true)
    try SyncSettings.setPaused(true, marker: marker)
    var agents: [SyncAgent] = []
    for (index, home) in homes.enumerated() {
      let signedIn = try await SyncClient.signIn(
        server: server.url, user: "alice", password: "alice-password", device: "D\(index)")
      let settings = SyncSettings(
        server: server.url, user: "alice", device: signedIn.device, token: signedIn.token,
        container: "iCloud.net.gacha.quire")
      // Signed in as `quire sync login` leaves it: the settings beside the pause marker (the
      // agent follows that folder only while they are there).
      try settings.save(to: home.url.appendingPathComponent("config/sync.json"))
      agents.append(
        try SyncAgent(
          settings: settings,
          folder: home.url.appendingPathComponent("Documents"),
          stateFile: home.url.appendingPathComponent("state.sqlite"),
          trash: Trash(folder: home.url.appendingPathComponent("Trash")),
          pauseMarker: index == 0 ? marker : home.url.appendingPathComponent("config/sync.paused")
        ))
    }
    // `quire sync resume` lands once the agent has read the marker and done its first step
    // (paused, it did nothing), before its watch of the settings folder is in place: `ready`
    // is called between the two.
    let a = agents[0]
    let running = Task {
      try await a.run(ready: { try? FileManager.default.removeItem(at: marker) })
    }
    defer { running.cancel() }
    let notes = homes[0].url.appendingPathComponent("Documents/Notes.txt")
    try FileManager.default.createDirectory(
      at: notes.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Disk.write("written while the agent starts\n", to: notes)
    // The other device gets it: the agent resumed without any further event.
    let b = agents[1]
    let arrived = await eventuallyAsync(seconds: 60) {
      try? await b.pull()
      return FileManager.default.fileExists(
        atPath: homes[1].url.appendingPathComponent("Documents/Notes.txt").path)
    }
    #expect(arrived, "the agent stayed paused after the marker was removed")
    running.cancel()
    _ = try? await running.value
  }
}
