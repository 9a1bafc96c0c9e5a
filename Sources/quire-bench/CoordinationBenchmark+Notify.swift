import ArgumentParser
import Foundation
import Quire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

extension CoordinationBenchmark {
  /// A presenter that notes when it first heard of each version (the file holds the number).
  final class TimingPresenter: FilePresenter {
    let url: URL
    let heard = Mutex<[Int: Double]>([:])
    init(_ url: URL) { self.url = url }
    nonisolated var presentedItemURL: URL? { url }
    func presentedItemDidChange() async {
      let now = CoordinationBenchmark.now()
      guard let text = try? String(contentsOf: url, encoding: .utf8), let version = Int(text)
      else { return }
      heard.withLock { if $0[version] == nil { $0[version] = now } }
    }
  }

  /// Has a child process (`quire-bench coordination-writer`) make paced coordinated writes and
  /// times how soon this process's presenter, and `inotifywait`, hear of each.
  func notifyDelays(file: URL, inotifywait: String) async throws -> ([Double], [Double]) {
    let presenter = TimingPresenter(file)
    try FileCoordinator.addFilePresenter(presenter)
    defer { FileCoordinator.removeFilePresenter(presenter) }
    let peerHeard = Mutex<[Double]>([])
    let watcher = Process()
    watcher.executableURL = URL(fileURLWithPath: inotifywait)
    watcher.arguments = ["-m", "-q", "-e", "close_write", "--format", "%f", file.path]
    let watcherOutput = Pipe()
    watcher.standardOutput = watcherOutput
    try watcher.run()
    let writer = try CoordinatedWriterProcess(writing: file)
    defer {
      kill(watcher.processIdentifier, SIGKILL)
      watcher.waitUntilExit()
    }
    Thread {
      var buffer = Data()
      while true {
        let chunk = watcherOutput.fileHandleForReading.availableData
        if chunk.isEmpty { return }
        let now = CoordinationBenchmark.now()
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: 0x0A) {
          peerHeard.withLock { $0.append(now) }
          buffer.removeSubrange(buffer.startIndex...newline)
        }
      }
    }.start()
    var notify: [Double] = []
    var peer: [Double] = []
    // Version 0 is a probe, repeated until both watchers are known to be watching.
    var version = -1
    var timed = 0
    while timed < events {
      version += 1
      let peerBefore = peerHeard.withLock { $0.count }
      let finished = try writer.write(version)
      let deadline = ContinuousClock.now + .seconds(2)
      var heard: Double?
      var peerTime: Double?
      while ContinuousClock.now < deadline && (heard == nil || peerTime == nil) {
        heard = presenter.heard.withLock { $0[version] }
        peerTime = peerHeard.withLock { $0.count > peerBefore ? $0[peerBefore] : nil }
        if heard == nil || peerTime == nil { await Task.yield() }
      }
      guard let heard, let peerTime else {
        if timed == 0 { continue }  // still starting up
        throw RawFiles.Failure(description: "version \(version) was not reported within 2 s")
      }
      notify.append(heard - finished)
      peer.append(peerTime - finished)
      timed += 1
    }
    return (notify, peer)
  }
}

/// Lines from a pipe.
final class LineSource {
  private let handle: FileHandle
  private var buffer = Data()
  init(_ handle: FileHandle) { self.handle = handle }
  func next() -> String? {
    while true {
      if let newline = buffer.firstIndex(of: 0x0A) {
        let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
        buffer.removeSubrange(buffer.startIndex...newline)
        return line
      }
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      buffer.append(chunk)
    }
  }
}

/// `quire-bench coordination-writer FILE`: for each number read on stdin, writes it into FILE in
/// a coordinated write and prints the moment of the write's `close` (monotonic ms), from which
/// both the presenter and inotifywait are timed.
struct CoordinationWriter: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "coordination-writer", abstract: "The other process of `coordination`.",
    shouldDisplay: false)

  @Argument var file: String

  func run() throws {
    let coordinator = FileCoordinator()
    let url = URL(fileURLWithPath: file)
    while let line = readLine() {
      var finished = 0.0
      try coordinator.coordinate(writingItemAt: url) { url in
        finished = try CoordinationBenchmark.writeFile(url.path, Array(line.utf8))
      }
      FileHandle.standardOutput.write(Data("\(finished)\n".utf8))  // unbuffered
    }
  }
}
