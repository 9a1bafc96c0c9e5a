import Foundation
import Quire
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Whether the writer writes at the next staged name: set by SIGUSR1, cleared by the write.
private let armed = Atomic<Bool>(false)

/// Another program that writes a file without coordination at the worst moment: the moment a
/// sync download stages the file that will replace it (a `.quire-sync-` or `.quire-stage-` name
/// appears in the folder), before the download's rename. It reads inotify itself, so it reacts
/// within microseconds, while the download still fsyncs what it staged. It writes once each
/// time it is armed (SIGUSR1), as a program's save comes now and then, not at every download.
struct UncoordinatedWriter {
  let folder: URL
  let file: URL

  init(watching folder: URL, file: URL) {
    self.folder = folder
    self.file = file
  }

  /// Appends "helper-N" to the file at the first staged name after each SIGUSR1, printing
  /// "wrote helper-N", until terminated. Prints "watching" once the watch and the signal hold.
  func run() throws {
    signal(SIGUSR1) { _ in armed.store(true, ordering: .sequentiallyConsistent) }
    var unblocked = sigset_t()  // the test's threads may have it blocked, and a child inherits that
    sigemptyset(&unblocked)
    sigaddset(&unblocked, SIGUSR1)
    pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    let inotify = inotify_init1(Int32(IN_CLOEXEC))
    guard inotify >= 0, inotify_add_watch(inotify, folder.path, UInt32(IN_CREATE)) >= 0 else {
      throw QuireError(.ioError, "Could not watch “\(folder.path)”.")
    }
    say("watching")
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    var written = 0
    while true {
      let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
      guard count > 0 else {
        if errno == EINTR { continue }
        throw QuireError(.ioError, "Could not read the watch of “\(folder.path)”.")
      }
      var offset = 0
      var staged = false
      while offset < count {
        let length = buffer.withUnsafeBytes {
          Int($0.load(fromByteOffset: offset + 12, as: UInt32.self))
        }
        let name = String(
          decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self
        )
        if name.hasPrefix(".quire-sync-") || name.hasPrefix(".quire-stage-") { staged = true }
        offset += 16 + length
      }
      guard staged, armed.exchange(false, ordering: .sequentiallyConsistent) else { continue }
      written += 1
      let line = "helper-\(written)"
      let fd = open(file.path, O_WRONLY | O_APPEND | O_CLOEXEC)
      guard fd >= 0 else { continue }  // not there this moment (being moved): the next one
      _ = Array((line + "\n").utf8).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      close(fd)
      say("wrote \(line)")
    }
  }
}
