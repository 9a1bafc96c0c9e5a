import Foundation
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// The app reads an agent's state when the state's folder changes. A transaction's write to the
/// WAL file comes before its commit is visible (SQLite publishes that in shared memory, which
/// raises no event), so a reader woken by it could read the old state and hear nothing more:
/// found when a device's Conflicts button stayed grey with the conflict recorded in its state.
@Suite("Readers of the sync state wake after its commits")
struct SyncStateWakeTests {
  @Test("every transaction ends by setting the state file's time, after its commit")
  func touchedAfterCommit() throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("state.sqlite")
    let state = try SyncState(file: file)
    let past = timespec(tv_sec: 1_000_000, tv_nsec: 0)
    var times = [past, past]
    try #require(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
    state.setConnection(.paused)
    var info = stat()
    try #require(stat(file.path, &info) == 0)
    #expect(info.st_mtim.tv_sec > past.tv_sec, "the state file was not touched after the commit")
    // What a reader woken then reads is the transaction.
    let reader = try SyncState(readingOnly: file)
    #expect(reader.connection == .paused)
  }
}
