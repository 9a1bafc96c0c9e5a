import Foundation
import Testing

@testable import Quire

/// Every monitor and presenter of a process shares one inotify instance, so an app with
/// hundreds of open documents keeps hearing of changes; at the system's limits a presenter falls
/// back to checking its own file rather than going deaf.
@Suite("One inotify instance per process", .serialized, .timeLimit(.minutes(3)))
struct InotifySharingTests {
  /// The process's inotify instances, from /proc/self/fd.
  private func inotifyInstances() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).filter {
      (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0))
        == "anon_inode:inotify"
    }.count
  }

  @Test("500 presenters on 500 files in one process each hear an outside change")
  func fiveHundredPresenters() async throws {
    let folder = try TemporaryDirectory()
    var presenters: [(RecordingPresenter, URL)] = []
    for index in 0..<500 {
      let file = folder.file("document-\(index).txt")
      try Disk.write("\(index)", to: file)
      let presenter = RecordingPresenter(file)
      try FileCoordinator.addFilePresenter(presenter)
      presenters.append((presenter, file))
    }
    defer { for (presenter, _) in presenters { FileCoordinator.removeFilePresenter(presenter) } }
    // All 500 written at once, then each asked whether it heard: one at a time, each waited
    // for its change in turn, and 500 coalescing intervals in a row took three minutes under
    // a loaded run. The watches start in the background, so a file whose presenter has not
    // heard yet is written again, up to 50 times.
    var deaf = presenters
    for attempt in 0..<50 where !deaf.isEmpty {
      for (_, file) in deaf { try Data("outside \(attempt)".utf8).write(to: file) }
      var still: [(RecordingPresenter, URL)] = []
      for (presenter, file) in deaf
      where await presenter.waitFor(seconds: 0.5, { $0 == "changed" }) == nil {
        still.append((presenter, file))
      }
      deaf = still
    }
    #expect(
      deaf.isEmpty,
      "these presenters never heard their file change: \(deaf.prefix(10).map(\.1.lastPathComponent))"
    )
    #expect(
      inotifyInstances() <= 2, "the process holds \(inotifyInstances()) inotify instances")
  }

  @Test("past the watch limit a presenter checks its own file and still hears a change")
  func fallbackWithoutWatches() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("first", to: file)
    let helper = try HelperProcess(
      ["hear-change", file.path], environment: ["QUIRE_INOTIFY_MAX_WATCHES": "0"])
    #expect(helper.lines.nextLine() == "ready")
    // The periodic check starts from the file as it first sees it: change it until heard.
    let deadline = ContinuousClock.now + .seconds(20)
    var told: String?
    var attempt = 0
    while told == nil && ContinuousClock.now < deadline {
      attempt += 1
      try Data("changed \(attempt)".utf8).write(to: file)
      try await Task.sleep(for: .milliseconds(300))  // paces the writes, not a wait: the read is
      told = helper.lines.nextLineIfAvailable()
    }
    #expect(told == "told")
  }
}
