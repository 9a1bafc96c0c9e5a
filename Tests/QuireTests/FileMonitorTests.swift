import Foundation
import Synchronization
import Testing

@testable import Quire

#if canImport(Glibc)
  import Glibc
#endif

@Suite("File monitor", .serialized)
struct FileMonitorTests {
  /// Starts watching `folder`, runs `action`, and collects events until `done` says enough or
  /// the deadline passes (the wait ends as soon as `done` is satisfied).
  static func events(
    in folder: TemporaryDirectory, seconds: Double = 60,
    _ action: @escaping @Sendable () throws -> Void,
    until done: @escaping @Sendable ([FileEvent]) -> Bool
  ) async throws -> [FileEvent] {
    let collected = EventLog()
    _ = try await withDeadline(seconds: seconds) {
      var iterator = FileMonitor(watching: folder.url).makeAsyncIterator()
      try action()
      while let event = try await iterator.next() {
        let all = collected.events.withLock { events in
          events.append(event)
          return events
        }
        if done(all) { return true }
      }
      return false
    }
    return collected.events.withLock { $0 }
  }

  /// The events seen so far, shared between the watching task and the test.
  final class EventLog: Sendable {
    let events = Mutex<[FileEvent]>([])
  }

  @Test("creations, writes, attribute changes and deletions are reported with their paths")
  func basicEvents() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("a.txt").path
    let events = try await Self.events(in: folder) {
      try Disk.write("one", to: folder.file("a.txt"))
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
      try FileManager.default.removeItem(atPath: file)
    } until: {
      $0.contains(FileEvent(.deleted, path: file))
    }
    #expect(events.first == FileEvent(.created, path: file))
    #expect(events.contains(FileEvent(.deleted, path: file)))
  }

  @Test("folders that appear are watched at once, including what was put in them first")
  func newFoldersAreWatched() async throws {
    let folder = try TemporaryDirectory()
    let deep = folder.file("a/b/c.txt").path
    let later = folder.file("a/b/later.txt").path
    let events = try await Self.events(in: folder) {
      try Disk.write("deep", to: folder.file("a/b/c.txt"))  // a/ and a/b/ appear with it
    } until: {
      $0.contains { $0.path == deep }
    }
    #expect(events.contains(FileEvent(.created, path: folder.file("a").path, isDirectory: true)))
    #expect(events.contains { $0.path == deep && $0.kind == .created })
    let more = try await Self.events(in: folder) {
      try Disk.write("later", to: URL(fileURLWithPath: later))
    } until: {
      $0.contains { $0.path == later }
    }
    #expect(more.contains(FileEvent(.created, path: later)))
  }

  @Test(
    "a move inside the tree is one event with both paths; moves across its edge are deletions and creations"
  )
  func moves() async throws {
    let folder = try TemporaryDirectory()
    let outside = try TemporaryDirectory()
    try Disk.write("x", to: folder.file("old.txt"))
    try Disk.write("y", to: outside.file("incoming.txt"))
    try Disk.write("z", to: folder.file("leaving.txt"))
    try FileManager.default.createDirectory(
      at: folder.file("dir"), withIntermediateDirectories: true)
    let renamed = folder.file("new.txt").path
    let events = try await Self.events(in: folder) {
      try FileManager.default.moveItem(at: folder.file("old.txt"), to: folder.file("new.txt"))
      try FileManager.default.moveItem(
        at: outside.file("incoming.txt"), to: folder.file("incoming.txt"))
      try FileManager.default.moveItem(
        at: folder.file("leaving.txt"), to: outside.file("leaving.txt"))
      try FileManager.default.moveItem(at: folder.file("dir"), to: folder.file("moved-dir"))
      try Disk.write("inside", to: folder.file("moved-dir/after.txt"))
    } until: {
      $0.contains { $0.path.hasSuffix("moved-dir/after.txt") }
    }
    #expect(events.contains(FileEvent(.moved(from: folder.file("old.txt").path), path: renamed)))
    #expect(events.contains(FileEvent(.created, path: folder.file("incoming.txt").path)))
    #expect(events.contains(FileEvent(.deleted, path: folder.file("leaving.txt").path)))
    #expect(
      events.contains(
        FileEvent(
          .moved(from: folder.file("dir").path), path: folder.file("moved-dir").path,
          isDirectory: true)))
    #expect(
      events.contains(FileEvent(.created, path: folder.file("moved-dir/after.txt").path)),
      "the moved folder's watch follows it")
  }

  @Test("deleting the watched folder itself is reported, and the sequence ends")
  func rootDeleted() async throws {
    let parent = try TemporaryDirectory()
    let root = parent.file("watched")
    try Disk.write("x", to: root.appendingPathComponent("a.txt"))
    let ended = try await withDeadline(seconds: 60) {
      var events: [FileEvent] = []
      var iterator = FileMonitor(watching: root).makeAsyncIterator()
      try FileManager.default.removeItem(at: root)
      while let event = try await iterator.next() { events.append(event) }
      return events
    }
    let events = try #require(ended, "the sequence did not end")
    #expect(events.contains(FileEvent(.deleted, path: root.path, isDirectory: true)))
    #expect(events.contains(FileEvent(.deleted, path: root.appendingPathComponent("a.txt").path)))
  }

  @Test("a burst of writes is coalesced")
  func coalescing() async throws {
    let folder = try TemporaryDirectory()
    let file = folder.file("busy.txt")
    try Disk.write("0", to: file)
    let marker = folder.file("done.txt").path
    let events = try await Self.events(in: folder) {
      let handle = try FileHandle(forWritingTo: file)
      for index in 0..<2000 { try handle.write(contentsOf: Data("\(index)".utf8)) }
      try handle.close()
      try Disk.write("done", to: URL(fileURLWithPath: marker))
    } until: {
      $0.contains { $0.path == marker }
    }
    let writes = events.filter { $0.path == file.path && $0.kind == .modified }.count
    #expect(
      writes >= 1 && writes < 200, "2000 writes became \(writes) events (at least 10 times fewer)")
  }

  @Test("a queue overflow becomes a rescan event")
  func overflow() {
    var translator = InotifyTranslator(root: "/library")
    translator.watched(1, path: "/library")
    translator.translate(.init(descriptor: 1, mask: UInt32(IN_CREATE), cookie: 0, name: "a"))
    translator.translate(.init(descriptor: -1, mask: UInt32(IN_Q_OVERFLOW), cookie: 0, name: ""))
    translator.translate(.init(descriptor: 1, mask: UInt32(IN_MOVED_FROM), cookie: 7, name: "gone"))
    let (events, _) = translator.flush()
    #expect(
      events == [
        FileEvent(.created, path: "/library/a"),
        FileEvent(.rescan, path: "/library", isDirectory: true),
        FileEvent(.deleted, path: "/library/gone"),
      ])
  }

  @Test(
    "a folder that appears and is renamed into place before its watch is made is watched where it landed"
  )
  func stagedFolderIsWatched() {
    // An atomic save: a hidden staging folder is filled, then renamed over the name. When the
    // reading thread is late, the creation and the rename arrive in one read, so the watch asked
    // for under the staging name finds nothing; later writes inside must still be heard.
    var translator = InotifyTranslator(root: "/library")
    translator.watched(1, path: "/library")
    let folder = UInt32(IN_ISDIR)
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_CREATE) | folder, cookie: 0, name: ".stage"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 9, name: ".stage"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 9, name: "Trip.mydoc"))
    // The watch under the staging name finds nothing and is skipped.
    #expect(translator.takeActions() == [.watch("/library/.stage"), .watch("/library/Trip.mydoc")])

    // The watch was tried in an earlier read and found nothing: the rename alone asks again.
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_CREATE) | folder, cookie: 0, name: ".next"))
    #expect(translator.takeActions() == [.watch("/library/.next")])
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 10, name: ".next"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 10, name: "Next.mydoc"))
    #expect(translator.takeActions() == [.watch("/library/Next.mydoc")])

    // A folder already watched keeps its watch under the new name, and is walked again there.
    translator.watched(2, path: "/library/Trip.mydoc")
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 11, name: "Trip.mydoc"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 11, name: "Moved.mydoc"))
    #expect(translator.takeActions() == [.watch("/library/Moved.mydoc")])
    #expect(translator.paths[2] == "/library/Moved.mydoc")
  }

  @Test(
    "a batch about to end with a move's first half waits on the folder it left, unless a watch saw it arrive"
  )
  func unpairedMoveWaitsOnItsFolder() {
    // The reading thread woken between the two halves of a rename (a loaded machine) has only
    // the first. Before the batch ends, the hub lists the folders such moves left, to wait for
    // the rename to finish there (its lock) and read again; a move whose arrival another watch
    // of the process already reported needs no wait.
    var translator = InotifyTranslator(root: "/library/Drafts")
    translator.watched(1, path: "/library/Drafts")
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM), cookie: 5, name: "notes.txt"))
    let (_, continuation) = AsyncThrowingStream<FileEvent, any Error>.makeStream()
    let now = ContinuousClock.now
    var subscriber = InotifyHub.Subscriber(
      translator: translator, recursive: false, coalescing: .milliseconds(1),
      continuation: continuation)
    subscriber.batchStart = now - .milliseconds(5)
    subscriber.lastEvent = now - .milliseconds(5)
    var state = InotifyHub.State()
    state.subscribers[0] = subscriber
    #expect(InotifyHub.unpairedMoveFolders(state, now: now) == ["/library/Drafts"])

    // Not due yet: the batch may still take the second half from the next read.
    state.subscribers[0]?.lastEvent = now
    state.subscribers[0]?.batchStart = now
    #expect(InotifyHub.unpairedMoveFolders(state, now: now).isEmpty)

    // Due, and the second half arrived through another watch: no wait, and the flush says where
    // it went.
    state.subscribers[0]?.lastEvent = now - .milliseconds(5)
    state.noteArrival(cookie: 5, path: "/library/Final/notes.txt")
    #expect(InotifyHub.unpairedMoveFolders(state, now: now).isEmpty)
    let arrivals = state.arrivals
    #expect(
      translator.flush { arrivals[$0] }.events == [
        FileEvent(.moved(from: "/library/Drafts/notes.txt"), path: "/library/Final/notes.txt")
      ])

    // The wait itself returns at once where no rename is under way, and for a folder gone.
    InotifyHub.waitForRenames(in: "/")
    InotifyHub.waitForRenames(in: "/nonexistent-\(UUID().uuidString)")
  }

  @Test("a batch that creates a subfolder, then moves its folder, walks the destination")
  func subfolderThenMove() {
    // `mkdir X/sub; mv X Y` read at once: the watch asked for X/sub must not be lost with X's
    // name. Before, it was dropped, and Y/sub stayed deaf for good.
    var translator = InotifyTranslator(root: "/library")
    translator.watched(1, path: "/library")
    translator.watched(2, path: "/library/X")
    let folder = UInt32(IN_ISDIR)
    translator.translate(
      .init(descriptor: 2, mask: UInt32(IN_CREATE) | folder, cookie: 0, name: "sub"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 3, name: "X"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 3, name: "Y"))
    #expect(translator.takeActions().last == .watch("/library/Y"))
    #expect(translator.paths[2] == "/library/Y")
  }

  @Test("a rename-exchange of two folders walks both names again")
  func exchange() {
    // The kernel reports an exchange as two moves; each renames the other's watches, so both
    // trees end under one name until both names are walked.
    var translator = InotifyTranslator(root: "/library")
    translator.watched(1, path: "/library")
    translator.watched(2, path: "/library/A")
    translator.watched(3, path: "/library/.tmp")
    let folder = UInt32(IN_ISDIR)
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 5, name: "A"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 5, name: ".tmp"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_FROM) | folder, cookie: 6, name: ".tmp"))
    translator.translate(
      .init(descriptor: 1, mask: UInt32(IN_MOVED_TO) | folder, cookie: 6, name: "A"))
    #expect(Set(translator.takeActions()) == [.watch("/library/A"), .watch("/library/.tmp")])
  }

  @Test("an overflow walks the whole tree again")
  func overflowWalks() {
    var translator = InotifyTranslator(root: "/library")
    translator.watched(1, path: "/library")
    translator.translate(.init(descriptor: -1, mask: UInt32(IN_Q_OVERFLOW), cookie: 0, name: ""))
    translator.translate(.init(descriptor: -1, mask: UInt32(IN_Q_OVERFLOW), cookie: 0, name: ""))
    #expect(translator.takeActions() == [.watch("/library")])
  }

  @Test("folders created and moved at once, and exchanged, are heard under their new paths")
  func movedAndExchangedFoldersAreHeard() async throws {
    let folder = try TemporaryDirectory()
    let root = folder.url.path
    let files = ["/Y/sub/one", "/B/inner/two", "/A/other/three"].map { root + $0 }
    // Done before the reading thread can react, as often as not in one read. Each file is then
    // heard, by its own event or by the walk that finds it, or not at all if a watch was lost.
    let events = try await Self.events(in: folder) {
      try Sys.mkdir(root + "/X")
      try Sys.mkdir(root + "/X/sub")
      try Sys.rename(root + "/X", root + "/Y")
      try Sys.mkdir(root + "/A")
      try Sys.mkdir(root + "/A/inner")
      try Sys.mkdir(root + "/B")
      try Sys.mkdir(root + "/B/other")
      try Sys.exchange(root + "/A", root + "/B")
      for file in files { try Disk.write("x", to: URL(fileURLWithPath: file)) }
    } until: { events in
      files.allSatisfy { file in events.contains { $0.path == file } }
    }
    for file in files {
      #expect(events.contains { $0.path == file }, "\(file) is heard, in \(events)")
    }
  }

  @Test("reaching the watch limit is a clear, typed error")
  func watchLimit() async throws {
    let folder = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      at: folder.file("sub"), withIntermediateDirectories: true)
    let calls = Mutex(0)
    let hook = FaultHook { call in
      guard call == "inotify_add_watch" else { return nil }
      return calls.withLock { count in
        count += 1
        return count == 2 ? ENOSPC : nil
      }
    }
    var iterator = Sys.$faults.withValue(hook) {
      FileMonitor(watching: folder.url).makeAsyncIterator()
    }
    await #expect {
      _ = try await iterator.next()
    } throws: { error in
      let error = error as? QuireError
      return error?.code == .limitReached && error?.message.contains("max_user_watches") == true
    }
  }

  @Test("ending the iteration releases its watch")
  func releasesWatch() async throws {
    // Other tests watch things at the same time, so count only the inotify descriptors that
    // watch this test's folder (/proc/self/fdinfo lists each watch's inode, in hex).
    let folder = try TemporaryDirectory()
    let inode = try #require(
      try FileManager.default.attributesOfItem(atPath: folder.url.path)[.systemFileNumber] as? Int)
    let watchedInode = "ino:" + String(inode, radix: 16) + " "
    @Sendable func descriptorsWatchingFolder() -> Int {
      let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
      return fds.filter { fd in
        guard
          (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd))
            == "anon_inode:inotify",
          let info = try? String(contentsOfFile: "/proc/self/fdinfo/" + fd, encoding: .utf8)
        else { return false }
        return info.contains(watchedInode)
      }.count
    }
    #expect(descriptorsWatchingFolder() == 0)
    let watchedWhileIterating = EventLog()
    _ = try await Self.events(in: folder) {
      try Disk.write("x", to: folder.file("x"))
      if descriptorsWatchingFolder() == 1 {
        watchedWhileIterating.events.withLock { $0.append(FileEvent(.rescan, path: "watched")) }
      }
    } until: {
      !$0.isEmpty
    }
    #expect(
      watchedWhileIterating.events.withLock { $0.count } == 1,
      "the check sees the monitor's descriptor")
    let deadline = ContinuousClock.now + .seconds(10)
    while descriptorsWatchingFolder() > 0 && ContinuousClock.now < deadline { await Task.yield() }
    #expect(descriptorsWatchingFolder() == 0)
  }
}
