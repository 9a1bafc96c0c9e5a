import Foundation
import Quire
import QuireCore
import QuireSyncProtocol
import Testing

@testable import QuireSync

/// How a first sync's placeholders are written and put in place (unnamed files, or temporary
/// names when it may not hold more files open), and how their records are queued while the
/// next pages are placed.
@Suite("Quire Sync: placeholders staged, placed and recorded in the background")
struct PlaceholderStagingTests {
  /// `count` placeholders of items `p0`, `p1`… in `folder`.
  static func files(_ count: Int, in folder: URL) -> [NewPlaceholder] {
    (0..<count).map { index in
      let name = "n\(index).txt"
      let record = SyncedItem(
        id: "p\(index)", path: name, kind: .file, revision: 3, members: [:], isPlaceholder: true)
      return NewPlaceholder(
        sequence: Int64(index + 1), record: record, folder: folder.path,
        target: folder.path + "/" + CloudPlaceholder.fileName(for: name),
        placeholder: CloudPlaceholder(
          name: name, isPackage: false, size: Int64(index), identity: "p\(index)", revision: 3,
          modified: Date(timeIntervalSince1970: 1_700_000_000)))
    }
  }

  @Test(
    "placeholders staged unnamed or under temporary names are placed whole, never over another name",
    arguments: [0, 3, 100])
  func stagedAndPlaced(unnamedLimit: Int) throws {
    let home = try TemporaryDirectory()
    let files = Self.files(8, in: home.url)
    // Two targets are taken already: one by this very placeholder (a crash before its record),
    // one by something else, which stays as it was.
    try Data(try JSONEncoder().encode(files[1].placeholder)).write(
      to: URL(fileURLWithPath: files[1].target))
    try Data("another's\n".utf8).write(to: URL(fileURLWithPath: files[2].target))
    let (staged, failure) = NewPlaceholder.stage(files, 0..<8, unnamedLimit: unnamedLimit)
    #expect(failure == nil)
    #expect(staged.map(\.index) == Array(0..<8))
    let unnamed = staged.filter { if case .unnamed = $0.file { true } else { false } }.count
    #expect(unnamed == min(unnamedLimit, 8), "unnamed files up to the limit, then named ones")
    // Until placed, no placeholder of those staged is visible under its name.
    for index in [0, 3, 7] {
      #expect(!FileManager.default.fileExists(atPath: files[index].target))
    }
    let placed = staged.filter { NewPlaceholder.place($0.file, as: files[$0.index]) }.map(\.index)
    #expect(placed == [0, 1, 3, 4, 5, 6, 7], "all but the one whose name is another's")
    for index in placed {
      let read = try CloudPlaceholder.read(at: URL(fileURLWithPath: files[index].target))
      #expect(read.identity == "p\(index)" && read.size == Int64(index))
      let mode = try #require(try Sys.status(files[index].target)).st_mode & 0o777
      #expect(mode == 0o644 & ~Self.umask, "a placeholder anyone may read, as before")
    }
    #expect(
      try String(contentsOfFile: files[2].target, encoding: .utf8) == "another's\n",
      "a name taken meanwhile is not written over")
    let left = try FileManager.default.contentsOfDirectory(atPath: home.url.path)
      .filter { $0.hasPrefix(".quire-sync-") }
    #expect(left.isEmpty, "no temporary name is left: \(left)")
  }

  @Test("a placeholder that cannot be written stops the run, and names its target")
  func writeFailure() throws {
    let home = try TemporaryDirectory()
    let files = Self.files(4, in: home.url)
    for call in ["open", "write"] {
      let (staged, failure) = Sys.$faults.withValue(FaultHook { $0 == call ? EIO : nil }) {
        NewPlaceholder.stage(files, 0..<4, unnamedLimit: 2)
      }
      #expect(failure?.target == files[0].target, "\(call)")
      for entry in staged { entry.file.discard() }
    }
    let left = try FileManager.default.contentsOfDirectory(atPath: home.url.path)
    #expect(left.isEmpty, "nothing is left of a failed stage: \(left)")
  }

  @Test("a queued record runs before the writes asked after it, and one that failed is held again")
  func queuedRecord() async throws {
    let home = try TemporaryDirectory()
    let file = home.url.appendingPathComponent("state.sqlite")
    let state = try SyncState(file: file)
    func entry(_ sequence: Int64, _ id: String) -> ChangeEntry {
      ChangeEntry(
        sequence: sequence, item: id, revision: 3, base: nil, kind: .file,
        path: "Documents/\(id).txt", deleted: false, conflict: false, device: "A",
        committed: 0)
    }
    let placed = Self.files(3, in: home.url).map { SyncedRecord($0.record) }
    let current = Dictionary(uniqueKeysWithValues: placed.map { ($0.id, $0) })
    var pending = PendingRecords()
    pending.add(placeholders: placed)
    for (index, record) in placed.enumerated() { pending.pass(entry(Int64(index + 1), record.id)) }
    pending.queue(to: state) { current[$0] }
    #expect(pending.placeholders.isEmpty && pending.passed.isEmpty)
    // A write asked for after it, at once: it runs after the queued one, whose cursor it moves.
    try state.advance(past: [entry(4, "q")])
    try await pending.settle()
    #expect(state.cursor == 4, "the queued record ran first")
    #expect(try state.syncedItems().values.filter(\.isPlaceholder).count == 3)

    // A state that refuses writes: the queued record fails, and is held again, in order.
    let refusing = try SyncState(readingOnly: file)
    let more = Self.files(5, in: home.url).suffix(2).map { SyncedRecord($0.record) }
    pending.add(placeholders: more)
    for (offset, record) in more.enumerated() { pending.pass(entry(Int64(5 + offset), record.id)) }
    pending.queue(to: refusing) { id in more.first { $0.id == id } }
    await #expect(throws: (any Error).self) { try await pending.settle() }
    #expect(pending.placeholders.map(\.id) == ["p3", "p4"])
    #expect(pending.passed.map(\.sequence) == [5, 6])
    try await pending.settle()  // nothing queued now
    try pending.flush(to: state) { id in more.first { $0.id == id } }
    #expect(state.cursor == 6)
    #expect(try state.syncedItems().values.filter(\.isPlaceholder).count == 5)
  }

  /// The process's umask, which a new file's mode loses.
  static var umask: mode_t {
    let mask = Glibc.umask(0)
    Glibc.umask(mask)
    return mask
  }
}
