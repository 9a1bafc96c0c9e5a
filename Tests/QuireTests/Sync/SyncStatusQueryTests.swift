import Foundation
import Quire
import QuireSync
import Testing

/// A `DocumentQuery` over a synced folder carries the agent's state on each item, as
/// NSMetadataQuery's ubiquitous attributes do, and updates it live: the agent is another
/// process, heard through its state file.
@Suite("Sync state in DocumentQuery items", .timeLimit(.minutes(3)))
struct SyncStatusQueryTests {
  @Test(
    "items show uploading, uploaded, downloading, an upload error and a conflict as they happen")
  func liveUbiquitousAttributes() async throws {
    let server = try await SyncServerProcess.started(arguments: ["--max-members-per-commit", "20"])
    let toA = try NetworkProxy(to: server.url.port!)
    let a = try SyncDevice("A", server: server, via: toA)
    let b = try SyncDevice("B", server: server)
    try a.start()
    try b.start()
    let query = DocumentQuery(
      scopes: [a.folder], index: nil,
      ubiquity: SyncStatusSource(
        folder: a.folder, stateFile: a.stateFile, settingsFile: a.settingsFile))
    let seen = Collector<[DocumentQuery.Item]>()
    let following = Task {
      for await results in query.results() where results.phase != .gathering(found: 0) {
        await seen.append(results.items)
      }
    }
    defer { following.cancel() }
    func waitFor(
      _ name: String, _ what: String,
      _ holds:
        @escaping @Sendable (DocumentQuery.Item)
        -> Bool
    ) async -> DocumentQuery.Item? {
      let values = await seen.wait(seconds: 60) { values in
        values.last?.first { $0.name == name }.map(holds) ?? false
      }
      let item = values.last?.first { $0.name == name }
      #expect(
        item.map(holds) == true,
        "\(name) never showed \(what); last: \(String(describing: item?.ubiquity))")
      return item
    }

    // An upload held in flight by the proxy: uploading, not uploaded; released: uploaded.
    toA.hold(up: toA.bytes.up + (1 << 20))
    try Data(SyncTestSupport.random(4 << 20, seed: 31)).write(to: a.url("Large.bin"))
    _ = await waitFor("Large.bin", "uploading") { $0.isUploading && !$0.isUploaded }
    toA.release()
    let uploaded = await waitFor("Large.bin", "uploaded") { $0.isUploaded && !$0.isUploading }
    #expect(uploaded?.isUbiquitous == true && uploaded?.downloadingStatus == .current)

    // A newer revision from B held in flight: downloading, an older one here; then current.
    toA.hold(down: toA.bytes.down + (1 << 20))
    try Data(SyncTestSupport.random(4 << 20, seed: 32)).write(to: b.url("Large.bin"))
    _ = await waitFor("Large.bin", "downloading") {
      $0.isDownloading && $0.downloadingStatus == .downloaded
    }
    toA.release()
    _ = await waitFor("Large.bin", "current again") {
      !$0.isDownloading && $0.downloadingStatus == .current && $0.isUploaded
    }

    // A package over the server's member limit: its upload error, with the server's code.
    // Made aside and moved in whole, so the agent never sees it with fewer members.
    let staging = a.home.url.appendingPathComponent("Big.mydoc")
    try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
    for index in 0..<30 {
      try Data("\(index)".utf8).write(to: staging.appendingPathComponent("m\(index).txt"))
    }
    try FileManager.default.moveItem(at: staging, to: a.url("Big.mydoc"))
    let failed = await waitFor("Big.mydoc", "its upload error") { $0.uploadingError != nil }
    #expect(failed?.isUploaded == false)
    #expect(failed?.uploadingError?.message.isEmpty == false)

    // Both devices edit a note while A is paused: the server keeps the later edit (B's) current
    // and A's as a conflict version, and the note has an unresolved conflict on both devices
    // until someone resolves it.
    try a.write("first", to: "Note.txt")
    _ = await waitFor("Note.txt", "uploaded") { $0.isUploaded }
    // A is not in sync (Big.mydoc's upload fails for good): its wait would never answer.
    #expect(await eventually { b.text("Note.txt") == "first" })
    try a.pause()
    #expect(try a.report().connection == .paused)
    try a.write("edited on A", to: "Note.txt")
    // A's edit is a minute older (A is paused: nothing reads it meanwhile), so B's is the later
    // one whatever the clock's granularity.
    try FileManager.default.setAttributes(
      [.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: a.url("Note.txt").path)
    try b.write("edited on B", to: "Note.txt")
    // B's edit is in the server's journal before A resumes: A's edit is then the conflict.
    let journal = try await server.client(
      "alice", device: "witness", container: "iCloud.net.gacha.quire")
    // A's first version, then B's edit (A, paused, commits nothing): heard on the server's
    // event stream, which replays the journal from the start; the deadline ends the wait.
    let committedOnB = await withTaskGroup(of: Bool.self) { group in
      group.addTask {
        var notes = 0
        do {
          for try await entry in journal.events(since: 0)
          where entry.path == "Documents/Note.txt" && !entry.conflict {
            notes += 1
            if notes >= 2 { return true }
          }
        } catch {}
        return false
      }
      group.addTask {
        try? await Task.sleep(for: .seconds(30))  // the deadline only
        return false
      }
      let first = await group.next() ?? false
      group.cancelAll()
      return first
    }
    #expect(committedOnB, "B's edit was never committed")
    try a.pause(false)
    _ = await waitFor("Note.txt", "a conflict") { $0.hasUnresolvedConflicts }
    #expect(await eventually { a.text("Note.txt") == "edited on B" }, "the later edit is current")
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: a.folder.path).filter {
        $0.hasPrefix("Note")
      } == ["Note.txt"], "no conflict copy beside the document: the other edit is a version")
    let listed = try Executables.run(
      "quire", ["versions", a.url("Note.txt").path], environment: a.environment)
    #expect(listed.status == 0, "\(listed.stderr)")
    #expect(listed.stdout.contains("conflict"), "\(listed.stdout)")
    #expect(listed.stdout.contains(" A"), "the conflict version names the device that saved it")
    let resolved = try Executables.run(
      "quire", ["versions", "resolve", a.url("Note.txt").path, "--keep", "current"],
      environment: a.environment)
    #expect(resolved.status == 0, "\(resolved.stderr)")
    _ = await waitFor("Note.txt", "its conflict resolved") { !$0.hasUnresolvedConflicts }
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }

  @Test("a folder signed out of sync has local items, and signing in makes them ubiquitous")
  func signedOutIsLocal() async throws {
    let server = try await SyncServerProcess.started()
    let a = try SyncDevice("A", server: server)
    try a.write("hello", to: "Note.txt")
    try FileManager.default.removeItem(at: a.settingsFile)
    let source = SyncStatusSource(
      folder: a.folder, stateFile: a.stateFile, settingsFile: a.settingsFile)
    #expect(await source.statuses() == nil, "signed out, the folder is not synced")
    let query = DocumentQuery(scopes: [a.folder], index: nil, ubiquity: source)
    let seen = Collector<[DocumentQuery.Item]>()
    let following = Task {
      for await results in query.results() where results.phase != .gathering(found: 0) {
        await seen.append(results.items)
      }
    }
    defer { following.cancel() }
    let local = await seen.wait { $0.last?.contains { $0.name == "Note.txt" } == true }
    #expect(local.last?.first { $0.name == "Note.txt" }?.isUbiquitous == false)
    let signIn = try SyncDevice("A2", server: server)  // writes a sign-in in its own config
    try FileManager.default.copyItem(at: signIn.settingsFile, to: a.settingsFile)
    try a.start()
    let synced = await seen.wait(seconds: 60) {
      $0.last?.first { $0.name == "Note.txt" }?.isUploaded == true
    }
    #expect(synced.last?.first { $0.name == "Note.txt" }?.isUploaded == true)
    withExtendedLifetime(server) {}  // the server runs until the test ends
  }
}
