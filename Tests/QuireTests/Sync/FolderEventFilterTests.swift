import Foundation
import Quire
import QuireCore
import Testing

@testable import QuireSync

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's own writes in the synced folder ask for no push; what people do there does.
/// Without this, every page of a first sync the receiver wrote asked for a scan of the whole
/// folder: a hundred thousand files cost a hundred thousand-file scan per page.
@Suite("Folder events: the agent's own writes ask for no push")
struct FolderEventFilterTests {
  static func parts(_ path: String, under root: String) -> [Substring] {
    path.dropFirst(root.count).split(separator: "/")
  }

  @Test(
    "folders, a placeholder and a download the agent publishes ask for no push; a file saved after them does"
  )
  func ownWritesAreQuiet() async throws {
    let folder = try TemporaryDirectory()
    let root = folder.url.path
    let trips = root + "/Notes/2026/Trips"
    let sentinel = root + "/Notes/saved.txt"
    let log = FileMonitorTests.EventLog()
    _ = try await withDeadline(seconds: 60) {
      var events = FileMonitor(watching: folder.url).makeAsyncIterator()
      func read(until path: String) async throws {
        while let event = try await events.next() {
          log.events.withLock { $0.append(event) }
          if event.path == path { return }
        }
      }
      // As a pull places them: folders made under temporary names and renamed into place;
      // once the monitor watches them, a placeholder and a file written under temporary names
      // and renamed into place; then a person's save.
      try AgentFolders.make(trips)
      try await read(until: trips)
      for (name, text) in [(".Lisbon.txt.icloud", "{}"), ("Porto.txt", "Porto")] {
        let temporary = trips + "/" + FolderEventFilter.temporaryName()
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        try Sys.rename(temporary, trips + "/" + name)
      }
      try Data("saved".utf8).write(to: URL(fileURLWithPath: sentinel))
      try await read(until: sentinel)
      return true
    }
    let events = log.events.withLock { $0 }
    let before = events.prefix { $0.path != sentinel }
    #expect(before.contains { $0.path == trips + "/Porto.txt" }, "the agent's writes were seen")
    for event in before {
      #expect(
        !FolderEventFilter.asksForPush(event, parts: Self.parts(event.path, under: root)),
        "\(event) asked for a push")
    }
    let saved = try #require(events.first { $0.path == sentinel })
    #expect(FolderEventFilter.asksForPush(saved, parts: Self.parts(sentinel, under: root)))
  }

  @Test(
    "what people do asks for a push: saves, renames, deletions, a placeholder moved or deleted, lost events"
  )
  func peoplesChangesAsk() {
    let root = "/home/ana/Documents"
    let asking: [FileEvent] = [
      FileEvent(.created, path: root + "/a.txt"),
      FileEvent(.created, path: root + "/Trip.mydoc", isDirectory: true),
      FileEvent(.modified, path: root + "/a.txt"),
      FileEvent(.attributesChanged, path: root + "/Trip.mydoc/notes.txt"),
      FileEvent(.moved(from: root + "/a.txt"), path: root + "/b.txt"),
      FileEvent(.moved(from: root + "/.b.txt.icloud"), path: root + "/Old/.b.txt.icloud"),
      FileEvent(.moved(from: root + "/.quire-sync-notes.txt"), path: root + "/notes.txt"),
      FileEvent(.deleted, path: root + "/.b.txt.icloud"),
      FileEvent(.deleted, path: root + "/.quire"),
      FileEvent(.moved(from: root + "/.quire-syncing"), path: root + "/syncing.txt"),
      FileEvent(.rescan, path: root, isDirectory: true),
    ]
    for event in asking {
      #expect(
        FolderEventFilter.asksForPush(event, parts: Self.parts(event.path, under: root)),
        "\(event)")
    }
    let quiet: [FileEvent] = [
      FileEvent(.created, path: root + "/.quire-sync-1"),
      FileEvent(.modified, path: root + "/.quire-sync-1/Trip.mydoc/a.txt"),
      FileEvent(.deleted, path: root + "/.quire-sync-1"),
      FileEvent(
        .moved(from: root + "/" + FolderEventFilter.temporaryName()), path: root + "/a.txt"),
      FileEvent(
        .moved(from: root + "/" + FolderEventFilter.temporaryName()), path: root + "/Trips",
        isDirectory: true),
      FileEvent(.created, path: root + "/Trips/.a.txt.icloud"),
      FileEvent(.created, path: root + "/Trips", isDirectory: true),
      FileEvent(.modified, path: root + "/Trip.mydoc/.photo.jpg.icloud"),
    ]
    for event in quiet {
      #expect(
        !FolderEventFilter.asksForPush(event, parts: Self.parts(event.path, under: root)),
        "\(event)")
    }
  }

  @Test(
    "the agent's folders: made under temporary names, someone's folder used, a file never replaced")
  func agentFolders() throws {
    let folder = try TemporaryDirectory()
    let root = folder.url.path
    try AgentFolders.make(root + "/a/b/c")
    try AgentFolders.make(root + "/a/b/c")  // there already
    var isFolder: ObjCBool = false
    #expect(FileManager.default.fileExists(atPath: root + "/a/b/c", isDirectory: &isFolder))
    #expect(isFolder.boolValue)
    try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/a/file"))
    #expect(throws: SystemCallError.self) { try AgentFolders.make(root + "/a/file/d") }
    #expect(try String(contentsOfFile: root + "/a/file", encoding: .utf8) == "mine")
    // A file system without RENAME_NOREPLACE (NFS, some FUSE) still gets its folders.
    let withoutNoReplace = FaultHook { $0 == "renameat2" ? EINVAL : nil }
    try Sys.$faults.withValue(withoutNoReplace) {
      try AgentFolders.make(root + "/on NFS/a")
      try AgentFolders.make(root + "/on NFS/a")
    }
    #expect(FileManager.default.fileExists(atPath: root + "/on NFS/a", isDirectory: &isFolder))
    #expect(isFolder.boolValue)
    let left = try FileManager.default.subpathsOfDirectory(atPath: root)
    #expect(!left.contains { $0.contains(".quire-sync") }, "temporaries left: \(left)")
  }
}
