import Foundation
import Quire
import QuireCore
import QuireSyncProtocol
import Synchronization
import Testing

@testable import QuireSync

/// A first sync on demand records its placeholders several pages at a time: whatever stops
/// the pull part-way, every placeholder in the folder is the state's, and nothing the agent
/// did to an item meanwhile is written over.
@Suite("Quire Sync: placeholders recorded several pages at a time")
struct PlaceholderPagesTests {
  @Test("a pull that fails on its second page records the placeholders of the first")
  func failureRecordsPlaced() async throws {
    // 1 100 documents, every one a placeholder of the batch: two pages of the journal.
    let server = try await SyncServerProcess.started(users: ["alice": "alice-password"])
    let home = try TemporaryDirectory()
    defer { withExtendedLifetime((server, home)) {} }
    let (a, folderA, _) = try await PlaceholderBatchTests.agent(
      "A", server: server, home: home, download: .all)
    for index in 0..<1_100 {
      let folder = folderA.appendingPathComponent("d\(index % 3)")
      try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      try Data("note \(index)\n".utf8).write(to: folder.appendingPathComponent("n\(index).txt"))
    }
    try await a.pushLocalChanges()
    let (b, folderB, stateB) = try await PlaceholderBatchTests.agent(
      "B", server: server, home: home, download: .onDemand(downloadingUnder: 0))
    // The first page's barrier goes through; every later one fails, as a full disk would.
    let barriers = Mutex(0)
    let failing = FaultHook { call in
      guard call == "syncfs" else { return nil }
      return barriers.withLock {
        $0 += 1
        return $0 >= 2 ? EIO : nil
      }
    }
    await #expect(throws: SyncError.self) {
      try await Sys.$faults.withValue(failing) { try await b.pull() }
    }
    #expect(barriers.withLock { $0 } >= 2, "the second page was reached")
    let shown = Self.placeholders(in: folderB)
    #expect(shown.count >= 900, "the first page's placeholders are in the folder: \(shown.count)")
    let recorded = try SyncState(readingOnly: stateB).syncedItems()
    let unrecorded = shown.subtracting(recorded.values.filter(\.isPlaceholder).map(\.path))
    #expect(unrecorded.count == 0, "placeholders the state does not know")
    #expect(try SyncState(readingOnly: stateB).cursor > 0, "the cursor moved past them")
    // The next pull goes on from there and shows the rest, each once.
    try await b.pull()
    let all = try SyncState(readingOnly: stateB).syncedItems()
    #expect(all.values.filter(\.isPlaceholder).count == 1_100)
    #expect(Self.placeholders(in: folderB).count == 1_100)
    let leftovers = Self.temporaries(in: folderB)
    #expect(leftovers.isEmpty, "\(leftovers.prefix(3))")
  }

  @Test("placeholders a crash left unrecorded are taken as placed, not written one by one")
  func unrecordedAfterCrash() async throws {
    let (server, home, b, folderB, _) = try await PlaceholderBatchTests.joining(200)
    defer { withExtendedLifetime((server, home)) {} }
    try await b.pull()
    let shown = Self.placeholders(in: folderB)
    #expect(shown.count == 201)
    // The state B kept is lost, as when the agent is killed between placing a page and
    // recording it: a device with a fresh state pulls into the same folder.
    let (again, stateFile) = try await Self.freshState(
      "B-again", folder: folderB, server: server, home: home,
      download: .onDemand(downloadingUnder: 0))
    let counter = PullScanCostTests.Counter()
    try await Sys.$faults.withValue(counter.hook) { try await again.pull() }
    // One rename attempt each in the batch; the package with a thumbnail is written again on
    // its own (one rename), and no other placeholder is.
    #expect(counter["rename"] <= 2, "placeholders written again one by one: \(counter["rename"])")
    #expect(Self.placeholders(in: folderB) == shown)
    let records = try SyncState(readingOnly: stateFile).syncedItems()
    #expect(records.values.filter(\.isPlaceholder).count == 201)
    let leftovers = Self.temporaries(in: folderB)
    #expect(leftovers.isEmpty, "\(leftovers.prefix(3))")
  }

  @Test("placeholders a crash left unrecorded go when the documents are downloaded instead")
  func unrecordedThenDownloaded() async throws {
    let (server, home, b, folderB, _) = try await PlaceholderBatchTests.joining(40)
    defer { withExtendedLifetime((server, home)) {} }
    try await b.pull()
    #expect(Self.placeholders(in: folderB).count == 41)
    // The state is lost, and the device now downloads everything.
    let (again, _) = try await Self.freshState(
      "B-again", folder: folderB, server: server, home: home, download: .all)
    try await again.pull()
    #expect(
      try String(contentsOf: folderB.appendingPathComponent("d1/n7.txt"), encoding: .utf8)
        == "note 7\n")
    let left = Self.placeholders(in: folderB)
    #expect(left.count == 0, "placeholders beside their downloaded documents")
  }

  @Test("a placeholder the agent changed before the record is not written over")
  func changedBeforeRecord() throws {
    let home = try TemporaryDirectory()
    let file = home.url.appendingPathComponent("state.sqlite")
    let state = try SyncState(file: file)
    func item(_ id: String, placeholder: Bool) -> SyncedItem {
      SyncedItem(
        id: id, path: "\(id).txt", kind: .file, revision: 1, members: [:],
        isPlaceholder: placeholder)
    }
    func entry(_ sequence: Int64, _ id: String) -> ChangeEntry {
      ChangeEntry(
        sequence: sequence, item: id, revision: 1, base: nil, kind: .file,
        path: "Documents/\(id).txt", deleted: false, conflict: false, device: "A",
        committed: 0)
    }
    var pending = PendingRecords()
    let placed = ["a", "b", "c"].map { SyncedRecord(item($0, placeholder: true)) }
    pending.add(placeholders: placed)
    for (sequence, id) in [(1, "a"), (2, "b"), (3, "c")] {
      pending.pass(entry(Int64(sequence), id))
    }
    // While the pull fetched its next page, b was downloaded (and recorded so) and c removed.
    let downloaded = item("b", placeholder: false)
    try state.record(downloaded, changed: [], removed: [])
    let current = ["a": placed[0], "b": SyncedRecord(downloaded)]
    try pending.flush(to: state) { current[$0] }
    let records = try state.syncedItems()
    #expect(records["a"]?.isPlaceholder == true)
    #expect(records["b"] == downloaded, "the download's record stays")
    #expect(records["c"] == nil, "a removed item is not brought back")
    #expect(state.cursor == 3)
    #expect(pending.placeholders.isEmpty && pending.passed.isEmpty)
  }

  @Test("work split over threads comes back in order, with the task's fault hook in each run")
  func parallelRuns() {
    let order = ParallelRuns.map(1_000, width: 4) { Array($0) }.flatMap { $0 }
    #expect(order == Array(0..<1_000))
    #expect(ParallelRuns.map(0) { $0.count }.isEmpty)
    // More threads than the work fills: every run gets some, none an empty or inverted range.
    let narrow = ParallelRuns.map(64, width: 30) { $0 }
    #expect(narrow.allSatisfy { !$0.isEmpty } && narrow.flatMap { $0 } == Array(0..<64))
    let failures = Sys.$faults.withValue(FaultHook { $0 == "open" ? EACCES : nil }) {
      ParallelRuns.map(200, width: 2) { range in
        range.filter { _ in (try? Sys.open("/dev/null", O_RDONLY)) == nil }.count
      }
    }
    #expect(failures.count == 2, "two runs")
    #expect(failures.reduce(0, +) == 200, "every open failed, on either thread")
  }

  /// A device of alice's named `name` that syncs `folder` with a new, empty state: what an
  /// agent killed before its records finds at its next start, as far as those records go.
  static func freshState(
    _ name: String, folder: URL, server: SyncServerProcess, home: TemporaryDirectory,
    download: DownloadPolicy
  ) async throws -> (SyncAgent, URL) {
    let signedIn = try await SyncClient.signIn(
      server: server.url, user: "alice", password: "alice-password", device: name)
    let settings = SyncSettings(
      server: server.url, user: "alice", device: signedIn.device, token: signedIn.token,
      container: "iCloud.net.gacha.quire")
    let stateFile = home.url.appendingPathComponent("\(name).sqlite")
    let agent = try SyncAgent(
      settings: settings, folder: folder, stateFile: stateFile,
      trash: Trash(folder: home.url.appendingPathComponent("\(name)-Trash")), download: download)
    return (agent, stateFile)
  }

  /// The agent's temporary files (`.quire-…`) left anywhere under `folder`.
  static func temporaries(in folder: URL) -> [String] {
    ((try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? [])
      .filter { ($0 as NSString).lastPathComponent.hasPrefix(".quire-") }
  }

  /// The relative paths of the documents shown as placeholders under `folder`.
  static func placeholders(in folder: URL) -> Set<String> {
    let names = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
    return Set(
      names.compactMap { path -> String? in
        let name = (path as NSString).lastPathComponent
        guard CloudPlaceholder.isPlaceholderName(name) else { return nil }
        let parent = (path as NSString).deletingLastPathComponent
        let document = String(name.dropFirst().dropLast(CloudPlaceholder.suffix.count))
        return parent.isEmpty ? document : parent + "/" + document
      })
  }
}
