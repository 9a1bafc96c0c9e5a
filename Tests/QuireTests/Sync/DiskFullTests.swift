import Foundation
import GRDB
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// A device whose disk is full: its downloads fail with `ENOSPC`. The agent says the disk is
/// full, not that it is offline, keeps no partial file, and does not fetch the same bytes again
/// every few seconds; once there is room, the download completes.
@Suite("Quire Sync on a full disk")
struct DiskFullTests {
  static func enospc(_ call: String) -> Int32? {
    call == "write" || call == "pwrite" ? ENOSPC : nil
  }

  @Test("a full disk is told apart from any other failure, however the error was wrapped")
  func diskFullErrors() {
    let full = SystemCallError(call: "write", errno: ENOSPC)
    let quota = SystemCallError(call: "write", errno: EDQUOT)
    let broken = SystemCallError(call: "write", errno: EIO)
    #expect(DiskFull.caused(full) && DiskFull.caused(quota) && !DiskFull.caused(broken))
    #expect(DiskFull.caused(SyncError(.unavailable, "Could not write.", cause: full)))
    #expect(
      DiskFull.caused(
        SyncError(.unavailable, "Could not place.", cause: QuireError(.noSpace, "Full."))))
    #expect(!DiskFull.caused(SyncError(.unavailable, "The server is away.")))
    #expect(!DiskFull.caused(SyncError(.unavailable, "Could not write.", cause: broken)))
    #expect(!DiskFull.caused(nil))
  }

  @Test("a full disk is recognised from Foundation's and SQLite's errors too")
  func diskFullFromFoundationAndSQLite() throws {
    #expect(DiskFull.caused(CocoaError(.fileWriteOutOfSpace)))
    #expect(
      DiskFull.caused(
        CocoaError(
          .fileWriteUnknown,
          userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(EDQUOT))]
        )))
    #expect(!DiskFull.caused(CocoaError(.fileWriteNoPermission)))
    #expect(DiskFull.caused(POSIXError(.ENOSPC)) && !DiskFull.caused(POSIXError(.EACCES)))
    #expect(DiskFull.caused(DatabaseError(resultCode: .SQLITE_FULL)))
    #expect(!DiskFull.caused(DatabaseError(resultCode: .SQLITE_BUSY)))
    #expect(
      DiskFull.caused(
        SyncError(.unavailable, "Could not record.", cause: DatabaseError(resultCode: .SQLITE_FULL))
      ))
  }

  @Test(
    "the pause before the next round grows while the server is away, and is long while the disk is full"
  )
  func retryPauses() {
    var pause = RetryPause()
    let away = SyncError(.unavailable, "The server is away.")
    let full = SyncError(
      .unavailable, "Could not write.", cause: SystemCallError(call: "write", errno: ENOSPC))
    let awayPauses = (0..<8).map { _ in pause.pause(after: away) }
    #expect(
      awayPauses == [100, 200, 400, 800, 1600, 3200, 5000, 5000].map { .milliseconds($0) })
    #expect(pause.pause(after: full) == .seconds(60))
    #expect(pause.pause(after: full) == .seconds(60), "a full disk is not tried again sooner")
    pause.reset()
    #expect(pause.pause(after: away) == .milliseconds(100))
    #expect(pause.pause(after: full) == .seconds(60))
    #expect(pause.pause(after: away) == .milliseconds(200), "a full disk leaves the backoff alone")
  }

  @Test(
    "a download that finds the disk full says so, leaves nothing partial, and completes once there is room"
  )
  func downloadOnFullDisk() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    func agent(_ name: String) async throws -> (SyncAgent, URL, URL) {
      try await inProcessAgent(name, server: server, home: home)
    }
    let (a, folderA, _) = try await agent("A")
    let (b, folderB, stateB) = try await agent("B")
    let small = Data("a note\n".utf8)
    let large = Data(SyncTestSupport.random(12 << 20, seed: 41))
    try small.write(to: folderA.appendingPathComponent("Note.txt"))
    try large.write(to: folderA.appendingPathComponent("Large.bin"))
    try await a.pushLocalChanges()

    await #expect {
      try await Sys.$faults.withValue(FaultHook(Self.enospc)) { try await b.pull() }
    } throws: { DiskFull.caused($0) }
    let left = try FileManager.default.contentsOfDirectory(atPath: folderB.path)
    #expect(
      left.allSatisfy { name in
        name == "Note.txt" && (try? Data(contentsOf: folderB.appendingPathComponent(name))) == small
      }, "nothing partial: \(left)")

    // An earlier round found the server away; this one reached it, and found the disk full.
    await b.note(SyncError(.unavailable, "The server is away."))
    do {
      try await Sys.$faults.withValue(FaultHook(Self.enospc)) { try await b.pull() }
    } catch {
      await b.note(error)
    }
    let report = try SyncReport.read(stateFile: stateB, settings: nil)
    #expect(report.connection != .offline, "the server was reached: \(report.connection)")

    // A full disk met before any request (the state's first write) says nothing of the server:
    // a device that found it away still shows it away.
    await b.note(SyncError(.unavailable, "The server is away."))
    await b.note(
      SyncError(
        .unavailable, "Could not record.", cause: SystemCallError(call: "write", errno: ENOSPC)))
    let unreached = try SyncReport.read(stateFile: stateB, settings: nil)
    #expect(unreached.connection == .offline, "no request was made: \(unreached.connection)")
    #expect(unreached.lastError?.contains("disk is full") == true)
    #expect(
      report.lastError?.contains("disk is full") == true
        && (report.lastError?.contains("Large.bin") == true
          || report.lastError?.contains("Note.txt") == true),
      "it says so and names the file (whichever the journal listed first): \(report.lastError ?? "no error")"
    )

    try await b.pull()
    #expect(try Data(contentsOf: folderB.appendingPathComponent("Note.txt")) == small)
    #expect(try Data(contentsOf: folderB.appendingPathComponent("Large.bin")) == large)
  }
}
