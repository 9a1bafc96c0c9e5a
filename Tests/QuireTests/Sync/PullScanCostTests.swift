import Foundation
import GRDB
import Quire
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireSync

/// "Cost follows the change" for a first sync: the folder's items the device has not synced
/// are looked up in one scan per pull, not one per page of the journal (1 000 entries). With a
/// scan per page, a first sync of n files read the folder n / 1 000 times as it filled:
/// quadratic. Counted through `Sys`, at two sizes, per file brought down.
@Suite("Cost follows the change: a first sync's scans")
struct PullScanCostTests {
  /// Counts the `Sys` calls made under it, by name.
  final class Counter: Sendable {
    let counts = Mutex<[String: Int]>([:])
    var hook: FaultHook {
      FaultHook { [self] call in
        counts.withLock { $0[call, default: 0] += 1 }
        return nil
      }
    }
    subscript(_ call: String) -> Int { counts.withLock { $0[call] ?? 0 } }
  }

  /// Device `name` of `user`'s (whose password is "`user`-password"), signed in to `server`,
  /// its folder and state in `home`.
  static func agent(
    _ name: String, server: SyncServerProcess, home: TemporaryDirectory, user: String = "alice"
  ) async throws -> (SyncAgent, URL) {
    let signedIn = try await SyncClient.signIn(
      server: server.url, user: user, password: "\(user)-password", device: name)
    let folder = home.url.appendingPathComponent(name)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let agent = try SyncAgent(
      settings: SyncSettings(
        server: server.url, user: user, device: signedIn.device, token: signedIn.token,
        container: "iCloud.net.gacha.quire"),
      folder: folder, stateFile: home.url.appendingPathComponent("\(name).sqlite"),
      trash: Trash(folder: home.url.appendingPathComponent("\(name)-Trash")))
    return (agent, folder)
  }

  /// The `stat` calls per file of a first sync of `files` small files onto an empty device.
  static func statsPerFile(_ files: Int) async throws -> Double {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    func agent(_ name: String) async throws -> (SyncAgent, URL) {
      try await Self.agent(name, server: server, home: home)
    }
    let (a, folderA) = try await agent("A")
    for index in 0..<files {
      try Data("file \(index)\n".utf8).write(
        to: folderA.appendingPathComponent("Note \(index).txt"))
    }
    try await a.pushLocalChanges()
    let (b, folderB) = try await agent("B")
    let counter = Counter()
    try await Sys.$faults.withValue(counter.hook) { try await b.pull() }
    let names = try FileManager.default.contentsOfDirectory(atPath: folderB.path)
    let arrived = names.filter { !$0.hasPrefix(".") }.count
    if arrived != files {
      // What a failure needs to be understood: which files, and what each device's state says
      // of them (an error or a wait, on the sender or the receiver).
      let missing = (0..<files).map { "Note \($0).txt" }.filter { !names.contains($0) }
      var said: [String] = []
      for name in ["A", "B"] {
        let queue = try DatabaseQueue(path: home.url.appendingPathComponent("\(name).sqlite").path)
        said += try await queue.read { db in
          try Row.fetchAll(db, sql: "SELECT path, state, error FROM status").map {
            "\(name): \($0["path"] as String) \($0["state"] as String) \(($0["error"] as String?) ?? "")"
          }
        }
      }
      Issue.record(
        "missing on B: \(missing.prefix(5)); hidden: \(names.filter { $0.hasPrefix(".") }.prefix(5)); status: \(said.prefix(10))"
      )
    }
    #expect(arrived == files, "every file arrived")
    return Double(counter["stat"]) / Double(files)
  }

  @Test(
    "a first sync makes the same stat calls per file at 1 100 files (2 pages) and at 2 100 (3 pages)"
  )
  func firstSyncScansOnce() async throws {
    let small = try await Self.statsPerFile(1_100)
    let large = try await Self.statsPerFile(2_100)
    // A scan per page would add (0 + 1 000 + 2 000) / 2 100 = 1.43 stats per file at the larger
    // size, against 1 000 / 1 100 = 0.91 at the smaller.
    #expect(
      large <= small + 0.3,
      "stat calls per file grew with the folder: \(small) at 1 100 files, \(large) at 2 100")
  }

  @Test("pulls that each bring new items scan the folder once, until the folder is said to change")
  func streamedFirstSyncScansOnce() async throws {
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    defer { withExtendedLifetime(server) {} }  // the server stops when released
    let home = try TemporaryDirectory()
    func agent(_ name: String) async throws -> (SyncAgent, URL) {
      try await Self.agent(name, server: server, home: home)
    }
    let (a, folderA) = try await agent("A")
    let (b, folderB) = try await agent("B")
    // A sends four batches, each in a folder of its own; B pulls after each, as its server
    // events would have it. Each pull brings items new to B.
    var listings: [Int] = []
    for batch in 0..<4 {
      let subfolder = folderA.appendingPathComponent("Batch \(batch)")
      try FileManager.default.createDirectory(at: subfolder, withIntermediateDirectories: true)
      for index in 0..<20 {
        try Data("note \(batch).\(index)\n".utf8).write(
          to: subfolder.appendingPathComponent("Note \(index).txt"))
      }
      try await a.pushLocalChanges()
      if batch == 3 { await b.request(push: true) }  // someone changed B's folder
      let counter = Counter()
      try await Sys.$faults.withValue(counter.hook) { try await b.pull() }
      listings.append(counter["readdir"])
    }
    let arrived = try FileManager.default.subpathsOfDirectory(atPath: folderB.path)
      .filter { $0.hasSuffix(".txt") }
    #expect(arrived.count == 80, "every note arrived: \(arrived.count)")
    // The first pull lists B's folder; the next two trust that scan (no event since); after
    // the folder is said to have changed, the pull lists it again.
    #expect(listings[0] > 0 && listings[3] > 0, "\(listings)")
    #expect(listings[1] == 0 && listings[2] == 0, "folder listings per pull: \(listings)")
  }
}
