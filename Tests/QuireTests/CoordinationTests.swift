import Foundation
import Synchronization
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

/// Whether a coordinated access of `intent` is held off now: it is tried with a coordinator that
/// gives up (is cancelled) after `patience`. Not a pre-cancelled one: tests running in parallel
/// hold the gates of shared ancestors such as `/tmp` for an instant, and a pre-cancelled
/// coordinator would take that instant for a wait.
func wouldWait(_ intent: FileAccessIntent, patience: Double = 0.25) -> Bool {
  let coordinator = FileCoordinator()
  let giveUp = DispatchWorkItem { coordinator.cancel() }
  DispatchQueue.global().asyncAfter(deadline: .now() + patience, execute: giveUp)
  defer { giveUp.cancel() }
  do {
    if intent.isWriting {
      try coordinator.coordinate(writingItemAt: intent.url) { _ in }
    } else {
      try coordinator.coordinate(readingItemAt: intent.url, options: .withoutChanges) { _ in }
    }
    return false
  } catch let error as QuireError where error.code == .cancelled {
    return true
  } catch {
    return false
  }
}

/// A flag one task sets and others read.
final class StopFlag: Sendable {
  private let flag = Atomic(false)
  var isSet: Bool { flag.load(ordering: .relaxed) }
  func set() { flag.store(true, ordering: .relaxed) }
}

@Suite("File coordination across processes", .serialized, .timeLimit(.minutes(2)))
struct CoordinationTests {
  @Test("readers in this process never see a torn version while another process writes")
  func noTornReads() async throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Torn.mydoc")
    for index in 0..<8 { try Disk.write("0", to: package.appendingPathComponent("m\(index).txt")) }
    let writer = try HelperProcess(["coord-write-loop", package.path, "300"])
    let coordinator = FileCoordinator()
    var reads = 0
    var versions = Set<String>()
    var writerDone = false
    while !writerDone || reads < 2000 {
      let values = try coordinator.coordinate(readingItemAt: package) { url in
        try (0..<8).map { try Disk.read(url.appendingPathComponent("m\($0).txt")) }
      }
      #expect(Set(values).count == 1, "read \(reads) saw a mix of versions: \(values)")
      versions.insert(values[0])
      reads += 1
      if !writerDone && writer.lines.nextLineIfAvailable() == "done" { writerDone = true }
    }
    #expect(writer.wait() == 0)
    #expect(versions.count > 2, "the reads interleaved with the writes: \(versions.count) versions")
  }

  @Test("a reader in another process gets the edits this process had not saved yet")
  func readerGetsUnsavedEdits() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("saved text", to: file)
    let editor = try HelperProcess(["edit-and-wait", file.path, "unsaved edit"])
    #expect(editor.lines.nextLine() == "ready")
    #expect(try Disk.read(file) == "saved text")
    let text = try FileCoordinator().coordinate(readingItemAt: file) { try Disk.read($0) }
    #expect(text == "unsaved edit")
  }

  @Test("one coordinated read of many items gets each one's unsaved edits from other processes")
  func batchReaderGetsUnsavedEdits() async throws {
    let folder = try TemporaryDirectory()
    let files = (0..<4).map { folder.file("note \($0).txt") }
    for file in files { try Disk.write("saved text", to: file) }
    // Two of the four are open in other processes, one of them in a subfolder: the read looks
    // up each item's presenters, from one listing of the folders the items share.
    let nested = folder.file("sub/deep note.txt")
    try Disk.write("saved text", to: nested)
    let editors = try [(files[1], "edit one"), (nested, "edit deep")].map { file, text in
      let editor = try HelperProcess(["edit-and-wait", file.path, text])
      #expect(editor.lines.nextLine() == "ready")
      return editor
    }
    let texts = try FileCoordinator().coordinate(readingItemsAt: files + [nested]) { urls in
      try urls.map { try Disk.read($0) }
    }
    #expect(texts == ["saved text", "edit one", "saved text", "saved text", "edit deep"])
    withExtendedLifetime(editors) {}
  }

  @Test("SIGKILL of the process holding a coordinated write releases it at once")
  func killedHolderReleases() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("held.txt")
    try Disk.write("x", to: file)
    let holder = try HelperProcess(["coord-hold", file.path, "write"])
    #expect(holder.lines.nextLine() == "held")
    #expect(wouldWait(.readingIntent(with: file)))
    #expect(wouldWait(.writingIntent(with: folder.url)), "the folder holding it is busy too")
    holder.kill()
    let text = try await withDeadline(seconds: 5) {
      try FileCoordinator().coordinate(readingItemAt: file, options: .withoutChanges) {
        try Disk.read($0)
      }
    }
    #expect(text == "x")
  }

  @Test("a waiting coordination ends when cancelled, though the holder never lets go")
  func cancelledWait() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("held.txt")
    try Disk.write("x", to: file)
    let holder = try HelperProcess(["coord-hold", file.path, "read"])
    #expect(holder.lines.nextLine() == "held")
    let coordinator = FileCoordinator()
    let task = Task {
      try await coordinator.coordinate(with: [.writingIntent(with: file)]) { _ in "wrote" }
    }
    #expect(wouldWait(.writingIntent(with: file)))
    task.cancel()
    // The holder never lets go by itself, so only the cancellation can end the wait. Should it not,
    // the holder is killed after 60 s: the access then goes ahead and the test fails instead of hanging.
    let deadline = Task {
      try await Task.sleep(for: .seconds(60))  // the deadline only
      holder.kill()
    }
    defer { deadline.cancel() }
    let result = await task.result
    let error = try #require(
      { if case .failure(let error) = result { error as? QuireError } else { nil } }(),
      "the cancelled access went ahead once the holder had gone")
    #expect(error.code == .cancelled)
  }

  @Test("a write that found the lock taken asks a presenter added meanwhile to relinquish")
  func fallbackLooksUpPresentersAgain() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("held.txt")
    try Disk.write("x", to: file)
    let holder = try HelperProcess(["coord-hold", file.path, "write"])
    #expect(holder.lines.nextLine() == "held")
    // Used by one thread at a time: this one, then the worker that waits, then this one.
    nonisolated(unsafe) let session = CoordinatedAccess(
      [.writingIntent(with: file)], presenter: nil
    ) { false }
    #expect(try session.beginWithoutWaiting() == nil, "the lock is held elsewhere")
    // Added after the try without waiting, before the wait: the write must still find it.
    let presenter = RecordingPresenter(file)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    holder.kill()
    let began: Result<[URL], QuireError> = await withCheckedContinuation { done in
      DispatchQueue.global().async {
        done.resume(returning: Result { () throws(QuireError) in try session.begin() })
      }
    }
    _ = try began.get()
    session.end()
    #expect(presenter.messages.contains("relinquish to writer"))
    #expect(await presenter.waitFor { $0 == "changed" } != nil)
  }

  @Test("hierarchy: a package write excludes its members; member writes exclude the package")
  func hierarchy() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    let member = package.appendingPathComponent("text.txt")
    let sibling = package.appendingPathComponent("image.png")
    try Disk.write("t", to: member)
    try Disk.write("i", to: sibling)
    try FileCoordinator().coordinate(writingItemAt: package) { _ in
      #expect(wouldWait(.readingIntent(with: member)))
      #expect(wouldWait(.writingIntent(with: member)))
    }
    try FileCoordinator().coordinate(writingItemAt: member) { _ in
      #expect(wouldWait(.readingIntent(with: package)))
      #expect(wouldWait(.writingIntent(with: package)))
      #expect(!wouldWait(.writingIntent(with: sibling)), "writers of two members run side by side")
      #expect(!wouldWait(.readingIntent(with: sibling)))
    }
    try FileCoordinator().coordinate(readingItemAt: package, options: .withoutChanges) { _ in
      #expect(!wouldWait(.readingIntent(with: member)), "readers share")
      #expect(wouldWait(.writingIntent(with: member)))
    }
    // One access writing both members (a batch, sharing one byte of the package's inner range):
    // the package is still held off, for reading and writing.
    try FileCoordinator().coordinate(writingItemAt: member, writingItemAt: sibling) { _, _ in
      #expect(wouldWait(.readingIntent(with: package)))
      #expect(wouldWait(.writingIntent(with: package)))
      #expect(wouldWait(.readingIntent(with: sibling)))
    }
  }

  @Test("a writer waiting behind readers is not starved by new readers")
  func writerNotStarved() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("busy.txt")
    try Disk.write("0", to: file)
    let stop = StopFlag()
    // Reader threads (not tasks: they block while they read), overlapping all the time.
    let finished = DispatchGroup()
    for _ in 0..<4 {
      finished.enter()
      Thread {
        let coordinator = FileCoordinator()
        while !stop.isSet {
          _ = try? coordinator.coordinate(readingItemAt: file, options: .withoutChanges) { _ in
            usleep(200)  // the reader's own work, holding the lock (not a wait for an event)
          }
        }
        finished.leave()
      }.start()
    }
    let wrote = try await withDeadline(seconds: 10) {
      try await FileCoordinator().coordinate(with: [.writingIntent(with: file)]) { urls in
        try Disk.write("1", to: urls[0])
        return true
      }
    }
    stop.set()
    finished.wait()
    #expect(wrote == true)
  }

  @Test("a presenter follows a move made by another process")
  func presenterFollowsMove() async throws {
    let folder = try TemporaryDirectory()
    let old = folder.file("Old.txt")
    let new = folder.file("New.txt")
    try Disk.write("x", to: old)
    let presenter = RecordingPresenter(old)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let mover = try HelperProcess(["coord-move", old.path, new.path])
    #expect(mover.lines.nextLine() == "moved")
    #expect(await presenter.waitFor { $0 == "moved \(new.path)" } != nil)
    #expect(presenter.presentedItemURL?.path == new.path)
    #expect(presenter.messages.contains("relinquish to writer"))
  }

  @Test("presenters answer while blocking coordinated writes hold every cooperative thread")
  func presentersAnswerUnderBlockedPool() async throws {
    let folder = try TemporaryDirectory()
    let count = ProcessInfo.processInfo.activeProcessorCount + 2
    let presenters = try (0..<count).map { index in
      let file = folder.file("\(index).txt")
      try Disk.write("x", to: file)
      let presenter = RecordingPresenter(file)
      try FileCoordinator.addFilePresenter(presenter)
      return presenter
    }
    defer { for presenter in presenters { FileCoordinator.removeFilePresenter(presenter) } }
    // Each writer blocks its pool thread until its presenter relinquished the file: with more
    // writers than threads, a presenter served by the pool could not answer before the reply
    // timeout, and its writer would run without the relinquish.
    let relinquishedFirst = await withTaskGroup(of: Bool.self) { group in
      for presenter in presenters {
        group.addTask {
          let url = presenter.presentedItemURL!
          return
            (try? FileCoordinator().coordinate(writingItemAt: url) { _ in
              presenter.messages.contains("relinquish to writer")
            }) ?? false
        }
      }
      return await group.reduce(into: [Bool]()) { $0.append($1) }
    }
    #expect(relinquishedFirst == Array(repeating: true, count: count))
  }

  @Test("a coordinated write by another process reaches the presenter, with relinquish first")
  func presenterHearsCoordinatedWrite() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("a.txt")
    try Disk.write("x", to: file)
    let presenter = RecordingPresenter(file)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let writer = try HelperProcess(["coord-write", file.path, "y"])
    #expect(writer.lines.nextLine() == "written")
    #expect(await presenter.waitFor { $0 == "reacquired" } != nil)
    let messages = presenter.messages
    let relinquish = try #require(messages.firstIndex(of: "relinquish to writer"))
    let changed = try #require(messages.firstIndex(of: "changed"))
    #expect(relinquish < changed)
  }

  @Test("an uncoordinated cp over the file reaches the presenter")
  func presenterHearsUncoordinatedCopy() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("a.txt")
    let other = folder.file("other.txt")
    try Disk.write("x", to: file)
    try Disk.write("from cp", to: other)
    let presenter = RecordingPresenter(file)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    // The watch starts in the background: copy until the presenter hears of it.
    let heard = try await withDeadline(seconds: 30) { () async throws -> Bool in
      while !Task.isCancelled {
        let copy = try Executables.runCommand(
          URL(fileURLWithPath: "/bin/cp"), [other.path, file.path])
        #expect(copy.status == 0)
        if await presenter.waitFor(seconds: 2, { $0 == "changed" }) != nil { return true }
      }
      return false
    }
    #expect(heard == true)
  }

  @Test("an uncoordinated change made as soon as a presenter is added reaches it")
  func presenterHearsChangeRightAfterAdding() async throws {
    // The watch is in place when addFilePresenter returns: a query presents its scope, walks
    // it, and counts on the watch for whatever the walk missed. Were the watch made later in
    // the background, a file written in between would go unheard, and the query deaf to it.
    let folder = try TemporaryDirectory()
    var written: [(RecordingPresenter, String)] = []
    defer { for (presenter, _) in written { FileCoordinator.removeFilePresenter(presenter) } }
    // Every other cooperative thread is held (as under load), so no background task runs until
    // the files are written. (Bounded waits: tests of other suites may hold threads too.)
    let held = ProcessInfo.processInfo.activeProcessorCount - 1
    let started = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    for _ in 0..<held {
      Task.detached {
        started.signal()
        _ = release.wait(timeout: .now() + 10)
      }
    }
    for _ in 0..<held { _ = started.wait(timeout: .now() + 10) }
    do {
      for number in 0..<10 {
        let scope = folder.file("scope-\(number)")
        try FileManager.default.createDirectory(at: scope, withIntermediateDirectories: true)
        let presenter = RecordingPresenter(scope)
        try FileCoordinator.addFilePresenter(presenter)
        let file = scope.appendingPathComponent("new.txt")
        try Data("x".utf8).write(to: file)
        written.append((presenter, file.path))
      }
    } catch {
      for _ in 0..<held { release.signal() }
      throw error
    }
    for _ in 0..<held { release.signal() }
    for (presenter, path) in written {
      let heard = await presenter.waitFor(seconds: 5) {
        $0 == "subitem appeared \(path)" || $0 == "subitem changed \(path)"
      }
      #expect(heard != nil, "no message about \(path): \(presenter.messages)")
    }
  }

  @Test("a coordinator's own presenter hears nothing of its own accesses")
  func ownPresenterExcluded() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("a.txt")
    try Disk.write("x", to: file)
    let mine = RecordingPresenter(file)
    let other = RecordingPresenter(file)
    try FileCoordinator.addFilePresenter(mine)
    try FileCoordinator.addFilePresenter(other)
    defer {
      FileCoordinator.removeFilePresenter(mine)
      FileCoordinator.removeFilePresenter(other)
    }
    try await FileCoordinator(filePresenter: mine).coordinate(with: [.writingIntent(with: file)]) {
      urls in
      try Disk.write("y", to: urls[0])
    }
    #expect(await other.waitFor { $0 == "changed" } != nil)
    #expect(!mine.messages.contains("relinquish to writer"))
    #expect(!mine.messages.contains("save"))
  }

  @Test("deleting a folder asks presenters inside it to accommodate the deletion")
  func deletionReachesPresentersInside() async throws {
    let folder = try TemporaryDirectory()
    let library = folder.file("Library")
    let file = library.appendingPathComponent("a.txt")
    try Disk.write("x", to: file)
    let inside = RecordingPresenter(file)
    let container = RecordingPresenter(folder.url)
    try FileCoordinator.addFilePresenter(inside)
    try FileCoordinator.addFilePresenter(container)
    defer {
      FileCoordinator.removeFilePresenter(inside)
      FileCoordinator.removeFilePresenter(container)
    }
    try await FileCoordinator().coordinate(with: [
      .writingIntent(with: library, options: .forDeleting)
    ]) { urls in
      try FileManager.default.removeItem(at: urls[0])
    }
    #expect(inside.messages.contains("deleted"), "asked before the deletion, and waited for")
    #expect(container.messages.contains("subitem deleting \(library.path)"))
  }

  @Test("forUploading hands a package to the accessor as a zip archive")
  func uploading() throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Doc.mydoc")
    try Disk.write("hello", to: package.appendingPathComponent("text.txt"))
    var archive: URL?
    try FileCoordinator().coordinate(readingItemAt: package, options: .forUploading) { url in
      archive = url
      #expect(url.pathExtension == "zip")
      let bytes = try Data(contentsOf: url)
      #expect(bytes.prefix(2) == Data("PK".utf8))
    }
    #expect(!FileManager.default.fileExists(atPath: archive!.path), "removed afterwards")
  }
}
