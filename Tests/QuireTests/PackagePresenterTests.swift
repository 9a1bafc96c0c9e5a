import Foundation
import Testing

@testable import Quire
@testable import QuireApp

/// A package document tells its own saves from other programs' writes of single members, with one
/// `stat` of the member an event names (no walk of the package).
@Suite("Package documents as presenters", .serialized, .timeLimit(.minutes(2)))
@MainActor
struct PackagePresenterTests {
  /// A MyDoc package with `text.txt` holding `text` and `count` filler members.
  private func makePackage(in folder: TemporaryDirectory, text: String, members count: Int = 3)
    throws -> URL
  {
    let package = folder.file("Notes.mydoc")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    try Disk.write(text, to: package.appendingPathComponent("text.txt"))
    for index in 0..<count {
      try Disk.write("\(index)", to: package.appendingPathComponent("filler-\(index).txt"))
    }
    return package
  }

  /// Writes `text` over `file` in place (same inode), as an editor without safe-save would.
  private func writeInPlace(_ text: String, to file: URL) throws {
    let handle = try FileHandle(forWritingTo: file)
    try handle.truncate(atOffset: 0)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  /// Writes `text` over the start of `file` with one `pwrite` (no truncation): one change, so
  /// the member never shows a state between two.
  private func overwrite(_ text: String, in file: URL) throws {
    let handle = try FileHandle(forWritingTo: file)
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  /// Overwrites `text.txt` of `package` (5 bytes, "first") with one write at a time until
  /// `document` has reloaded and shows the last one written (its watch starts in the
  /// background, so the first writes may come before it listens); true once it did.
  private func reloadAfterOutsideWrites(_ document: MyDocDocument, _ package: URL) async throws
    -> Bool
  {
    var attempt = 0
    let reloaded = try await withDeadline(seconds: 60) { @MainActor () async throws -> Bool in
      while !Task.isCancelled {
        attempt += 1
        let events = document.events()
        let text = "p" + String(1000 + attempt).suffix(4)  // the same 5 bytes long as "first"
        try self.overwrite(text, in: package.appendingPathComponent("text.txt"))
        // The reload shows this write, not only an earlier one heard late.
        let shown = try? await withDeadline(seconds: 10) { @MainActor () async -> Bool in
          for await event in events {
            if case .loaded = event, document.text == text { return true }
          }
          return false
        }
        if shown == true { return true }
      }
      return false
    }
    return reloaded == true
  }

  @Test("a member written in place by another program reloads the package document")
  func memberWrittenInPlaceReloads() async throws {
    let folder = try TemporaryDirectory()
    let package = try makePackage(in: folder, text: "first")
    let document = MyDocDocument(fileURL: package)
    try await document.open()
    defer { Task { try? await document.close() } }
    #expect(
      try await reloadAfterOutsideWrites(document, package),
      "the document never reloaded after text.txt was written in place")
    #expect(document.text?.hasPrefix("p") == true)
  }

  @Test("the document's own saves of a package do not make it reload")
  func ownSavesAreNotChanges() async throws {
    let folder = try TemporaryDirectory()
    let package = try makePackage(in: folder, text: "first", members: 200)
    let document = MyDocDocument(fileURL: package, clock: ManualClock())
    try await document.open()
    defer { Task { try? await document.close() } }
    #expect(try await reloadAfterOutsideWrites(document, package), "the watch never started")
    let events = document.events()
    for round in 1...5 {
      document.setText("mine \(round)")
      document.undoManager.endEvent()
      try await document.save(to: package, for: .forOverwriting)
    }
    // A marker change by another program: the first reload the document reports must be this
    // one. A reload caused by its own saves would come first and show "mine 5". The marker's
    // size differs from "mine 5": an in-place write of the same size within the kernel's
    // timestamp tick (about 4 ms) of the last save has the same signature and cannot be told
    // from it by `stat`, which is not what this test is about.
    try overwrite("marker text", in: package.appendingPathComponent("text.txt"))
    let first = await waitForEvent(events, seconds: 60) { event in
      if case .loaded = event { true } else { false }
    }
    #expect(first != nil, "the outside change was not heard")
    #expect(document.text == "marker text", "the document reloaded for its own save")
  }

  @Test("the events still queued for a change the document reloaded for do not reload it again")
  func queuedEventsOfOneChangeAreNotNewChanges() throws {
    let folder = try TemporaryDirectory()
    let package = try makePackage(in: folder, text: "first")
    let member = "text.txt"
    // As the document reloads for an event: the member judged, then the load, here in the
    // same clock tick as the write, where time alone cannot tell the queued events from a new
    // change.
    var signatures = MemberSignatures()
    let (changed, seen) = signatures.isOutsideChange(of: member, in: package.path)
    #expect(changed, "a member changed after the last load is an outside change")
    let written = try #require(seen, "the member's signature was not taken")
    signatures.reset(loadedAt: written.changed, seen: [member: seen])
    #expect(
      !signatures.isOutsideChange(of: member, in: package.path).outside,
      "a queued event of the change already loaded caused a second reload")
    try writeInPlace("written again, longer", to: package.appendingPathComponent(member))
    #expect(
      signatures.isOutsideChange(of: member, in: package.path).outside,
      "a write after the member was judged was not heard")
  }
}
