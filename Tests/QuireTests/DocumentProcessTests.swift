import Foundation
import Testing

@testable import Quire
@testable import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Documents across processes and at scale")
@MainActor
struct DocumentProcessTests {
  @Test(
    "SIGTERM saves an open document's unsaved changes before the process exits",
    arguments: [SIGTERM, SIGINT])
  nonisolated func terminationSaves(signal: Int32) throws {  // blocks: not on the main actor
    let folder = try TemporaryDirectory()
    let file = folder.file("notes.txt")
    try Disk.write("before", to: file)
    let process = Process()
    process.executableURL = Executables.url("quire-test-helper")
    process.arguments = ["edit-and-wait", file.path, "saved on termination"]
    process.environment = ProcessInfo.processInfo.environment.merging([
      "XDG_CACHE_HOME": folder.file("cache").path
    ]) { $1 }
    let output = Pipe()
    process.standardOutput = output
    let exited = DispatchSemaphore(value: 0)
    process.terminationHandler = { _ in exited.signal() }
    // Start the helper with SIGTERM and SIGINT blocked, as a parent on a Swift concurrency
    // thread can: the document must still hear them.
    var blocked = sigset_t()
    var previous = sigset_t()
    sigemptyset(&blocked)
    sigaddset(&blocked, SIGTERM)
    sigaddset(&blocked, SIGINT)
    pthread_sigmask(SIG_BLOCK, &blocked, &previous)
    let started = Result { try process.run() }
    pthread_sigmask(SIG_SETMASK, &previous, nil)
    try started.get()
    defer {
      if process.isRunning {
        kill(process.processIdentifier, SIGKILL)  // never leave a helper behind, even on failure
        process.waitForExit()
      }
    }
    #expect(LineReader(output.fileHandleForReading).nextLine() == "ready")
    #expect(try Disk.read(file) == "before")
    kill(process.processIdentifier, signal)
    try #require(
      exited.wait(timeout: .now() + 30) == .success, "the helper did not exit on \(signal)")
    #expect(process.terminationReason == .exit && process.terminationStatus == 0)
    #expect(try Disk.read(file) == "saved on termination")
  }

  @Test("an album opens without reading image bytes; adding and removing touch only that member")
  func album() async throws {
    let folder = try TemporaryDirectory()
    let package = folder.file("Trip.album")
    for index in 0..<50 {
      try Disk.write(
        String(repeating: "\(index % 10)", count: 1000),
        to: package.appendingPathComponent("IMG_\(index).jpg"))
    }
    let inode = { (name: String) in
      try FileManager.default.attributesOfItem(atPath: package.appendingPathComponent(name).path)[
        .systemFileNumber] as? Int
    }
    let before = try inode("IMG_7.jpg")
    let album = AlbumDocument(fileURL: package)
    try await album.open()
    #expect(album.imageNames.count == 50)
    let members = try album.contents(forType: AlbumDocument.typeIdentifier)
    guard case .fileWrapper(let wrapper) = members else {
      Issue.record("an album is a package")
      return
    }
    #expect(
      wrapper.fileWrappers!.values.allSatisfy { !$0.hasLoadedContents }, "opening read no image")
    #expect(
      try await album.image(named: "IMG_3.jpg") == Data(String(repeating: "3", count: 1000).utf8))
    #expect(!wrapper.fileWrappers!["IMG_3.jpg"]!.hasLoadedContents, "the album keeps no copy")

    let added = try album.addImage(Data("new".utf8), preferredName: "IMG_7.jpg")
    #expect(added == "IMG_7 2.jpg")
    try album.removeImage(named: "IMG_0.jpg")
    album.undoManager.endEvent()
    let calls = try await Faults.record { try await album.save(to: package, for: .forOverwriting) }
    #expect(
      calls.filter { $0 == "open" }.count < 10,
      "a save of two changes opens a handful of files, not 50")
    #expect(try inode("IMG_7.jpg") == before)
    #expect(
      FileManager.default.fileExists(atPath: package.appendingPathComponent("IMG_7 2.jpg").path))
    #expect(
      !FileManager.default.fileExists(atPath: package.appendingPathComponent("IMG_0.jpg").path))
    album.undoManager.undo()
    try await album.save(to: package, for: .forOverwriting)
    #expect(
      FileManager.default.fileExists(atPath: package.appendingPathComponent("IMG_0.jpg").path))
    #expect(
      !FileManager.default.fileExists(atPath: package.appendingPathComponent("IMG_7 2.jpg").path))
  }
}
