import Foundation
import Quire
import QuireSyncProtocol
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// An upload's reads go through `Sys`, so a test can fail them: a file that cannot be opened or
/// read is a typed error naming it and the system's reason, and a file cut short since it was
/// listed is "changed while syncing" (synced again), never a short member.
@Suite("Uploads under failing reads")
struct MemberReadFaultTests {
  @Test("a member that cannot be opened names the file and the reason")
  func openFails() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("Note.txt")
    try Disk.write("some text", to: file)
    do {
      _ = try Sys.$faults.withValue(FaultHook { $0 == "open" ? EMFILE : nil }) {
        try MemberSnapshot(path: "", file: file.path)
      }
      Issue.record("the member was read although open failed")
    } catch let error as SyncError {
      #expect(error.code == .unavailable)
      #expect(error.message.contains(file.path) && error.message.contains("Too many open files"))
    }
  }

  @Test("a chunk read that fails is an error naming the file; one cut short is a change")
  func readFailsOrShort() throws {
    let folder = try TemporaryDirectory()
    let file = try Self.writtenAndClosed(folder.file("Note.txt"))
    let snapshot = try MemberSnapshot(path: "", file: file.path)
    #expect(try snapshot.bytes(ofChunk: 0).count == snapshot.size)

    do {
      _ = try Sys.$faults.withValue(FaultHook { $0 == "pread" ? EIO : nil }) {
        try snapshot.bytes(ofChunk: 0)
      }
      Issue.record("the chunk was read although pread failed")
    } catch let error as SyncError {
      #expect(error.code == .unavailable)
      #expect(error.message.contains(file.path) && error.message.contains("Input/output error"))
    }

    #expect(truncate(file.path, 10) == 0)
    do {
      _ = try snapshot.bytes(ofChunk: 0)
      Issue.record("a chunk of a file cut short was read")
    } catch {
      #expect(error.code == .changedWhileSyncing)
    }
  }

  @Test(
    "a chunk the server refuses is the member's change only if its bytes changed here; other refusals stay the server's"
  )
  func refusedChunk() throws {
    let folder = try TemporaryDirectory()
    let file = try Self.writtenAndClosed(folder.file("Note.txt"))
    let snapshot = try MemberSnapshot(path: "", file: file.path)
    let refused = SyncError(.badChunk, "A chunk frame is cut short at byte 0.")
    #expect(MemberSnapshot.changedWhileSent(refused, sources: [(snapshot, 0)]).code == .badChunk)
    let other = SyncError(.forbidden, "Not yours.")
    #expect(MemberSnapshot.changedWhileSent(other, sources: [(snapshot, 0)]).code == .forbidden)

    // Written in place, same size: now the refusal is that change, naming the file.
    let writer = try FileHandle(forWritingTo: file)
    try writer.write(contentsOf: Data(repeating: 0x2E, count: snapshot.size))
    try writer.close()
    let changed = MemberSnapshot.changedWhileSent(refused, sources: [(snapshot, 0)])
    #expect(changed.code == .changedWhileSyncing)
    #expect(changed.message.contains(file.path))
  }

  /// `file` with 100 lines of text, once no process holds it open for writing.
  ///
  /// A process another test spawns at that moment holds a copy of every descriptor of this one
  /// until it execs, the file's writing one too; under load that copy outlived the write, and
  /// the snapshot rightly took the file for one still being written (CI failed so once). The
  /// kernel says when the last writer has closed it.
  static func writtenAndClosed(_ file: URL) throws -> URL {
    try Disk.write(String(repeating: "a line of text\n", count: 100), to: file)
    let reader = open(file.path, O_RDONLY | O_CLOEXEC)
    #expect(Sys.waitForWriters(of: reader, bound: .seconds(60)), "a writer kept the file open")
    close(reader)
    return file
  }
}
