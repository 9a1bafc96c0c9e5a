import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// One inotify instance and the thread that reads it. Everything mutable lives on that thread
/// (inside ``run()``); other threads only write to the wake pipe, so the class holds nothing but
/// constants.
final class InotifySession: Sendable {
  private let inotify: Int32
  private let wakeRead: Int32
  private let wakeWrite: Int32
  private let root: String
  private let coalescingMilliseconds: Int32
  private let recursive: Bool
  private let continuation: AsyncThrowingStream<FileEvent, any Error>.Continuation
  /// The longest a batch is held back while events keep coming.
  private static let maximumBatchAge = Duration.milliseconds(20)
  private static let mask = UInt32(
    IN_CREATE | IN_DELETE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | IN_ATTRIB
      | IN_DELETE_SELF | IN_EXCL_UNLINK)

  init(
    root: String, coalescingMilliseconds: Int32, recursive: Bool,
    continuation: AsyncThrowingStream<FileEvent, any Error>.Continuation
  )
    throws(QuireError)
  {
    self.root = root
    self.coalescingMilliseconds = coalescingMilliseconds
    self.recursive = recursive
    self.continuation = continuation
    let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
    guard fd >= 0 else {
      throw Self.error(SystemCallError(call: "inotify_init1", errno: cquire_errno()), path: root)
    }
    var pipeFds: [Int32] = [0, 0]
    guard pipe(&pipeFds) == 0 else {
      Glibc.close(fd)
      throw QuireError.system(
        SystemCallError(call: "pipe2", errno: cquire_errno()), action: "watch", path: root)
    }
    for end in pipeFds {
      _ = fcntl(end, F_SETFD, FD_CLOEXEC)
      _ = fcntl(end, F_SETFL, O_NONBLOCK)
    }
    inotify = fd
    wakeRead = pipeFds[0]
    wakeWrite = pipeFds[1]
  }

  /// Wakes the reading thread so it releases the watch and ends.
  func stop() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  /// Watches the tree, before any event can be missed; the caller then hands the result to
  /// ``run(_:)`` on the reading thread, or ``close()``s the session on failure.
  func prepare() throws(QuireError) -> InotifyTranslator {
    var translator = InotifyTranslator(root: root)
    try watchTree(root, in: &translator, reportContents: false)
    return translator
  }

  /// Releases the descriptors.
  func close() {
    Glibc.close(inotify)
    Glibc.close(wakeRead)
    Glibc.close(wakeWrite)
  }

  func run(_ prepared: InotifyTranslator) {
    var translator = prepared
    defer { close() }
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    // A batch is reported once no event has come for the quiet window, or once it is
    // `maximumBatchAge` old, so a constant stream of writes cannot hold events back.
    var batchStart: ContinuousClock.Instant?
    while true {
      var timeout: Int32 = -1
      if let batchStart {
        let age = ContinuousClock.now - batchStart
        let left = Self.maximumBatchAge - age
        let leftMilliseconds = Int32(
          left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
        timeout = Swift.max(0, Swift.min(coalescingMilliseconds, leftMilliseconds))
      }
      var fds = [
        pollfd(fd: inotify, events: Int16(POLLIN), revents: 0),
        pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      ]
      let ready = poll(&fds, 2, timeout)
      if ready < 0 && cquire_errno() == EINTR { continue }
      if fds[1].revents != 0 { break }
      if ready > 0 && fds[0].revents != 0 {
        readEvents(into: &translator, buffer: &buffer)
        do {
          try perform(translator.takeActions(), in: &translator)
        } catch {
          continuation.finish(throwing: error)
          return
        }
        if batchStart == nil { batchStart = .now }
        if ContinuousClock.now - batchStart! < Self.maximumBatchAge { continue }
      }
      guard batchStart != nil else { continue }
      batchStart = nil
      let (events, actions) = translator.flush()
      do { try perform(actions, in: &translator) } catch {
        continuation.finish(throwing: error)
        return
      }
      let discovered = translator.flush().events
      for event in events + discovered { continuation.yield(event) }
      if translator.paths.isEmpty { break }  // the watched item itself is gone
    }
    continuation.finish()
  }

  private func readEvents(into translator: inout InotifyTranslator, buffer: inout [UInt8]) {
    while true {
      let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
      guard count > 0 else { return }
      var offset = 0
      buffer.withUnsafeBytes { bytes in
        while offset + 16 <= count {
          let descriptor = bytes.load(fromByteOffset: offset, as: Int32.self)
          let mask = bytes.load(fromByteOffset: offset + 4, as: UInt32.self)
          let cookie = bytes.load(fromByteOffset: offset + 8, as: UInt32.self)
          let length = Int(bytes.load(fromByteOffset: offset + 12, as: UInt32.self))
          let nameBytes = bytes[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }
          translator.translate(
            .init(
              descriptor: descriptor, mask: mask, cookie: cookie,
              name: String(decoding: nameBytes, as: UTF8.self)))
          offset += 16 + length
        }
      }
    }
  }

  private func perform(
    _ actions: [InotifyTranslator.Action], in translator: inout InotifyTranslator
  )
    throws(QuireError)
  {
    for action in actions {
      switch action {
      case .watch(let path):
        guard recursive else { continue }
        try watchTree(path, in: &translator, reportContents: true)
      case .forget(let path):
        for (descriptor, watched) in translator.paths
        where watched == path || watched.hasPrefix(path + "/") {
          inotify_rm_watch(inotify, descriptor)
        }
      }
    }
  }

  /// Watches `path` and every folder below it; with `reportContents`, reports what is already
  /// inside (it may have been created before the watch took hold).
  private func watchTree(
    _ path: String, in translator: inout InotifyTranslator, reportContents: Bool
  )
    throws(QuireError)
  {
    let descriptor: Int32
    do throws(SystemCallError) {
      try Sys.check("inotify_add_watch")
      descriptor = inotify_add_watch(inotify, path, Self.mask)
      if descriptor < 0 { throw Sys.failure("inotify_add_watch") }
    } catch {
      if error.errno == ENOENT && path != root { return }  // it vanished already
      throw Self.error(error, path: path)
    }
    translator.watched(descriptor, path: path)
    guard let entries = try? Sys.listDirectory(at: path) else { return }
    for entry in entries {
      let child = path + "/" + entry.name
      var isDirectory = entry.type == UInt8(DT_DIR)
      if entry.type == UInt8(DT_UNKNOWN), let info = try? Sys.status(child) {
        isDirectory = info.isDirectory
      }
      if reportContents { translator.discovered(child, isDirectory: isDirectory) }
      if isDirectory && recursive {
        try watchTree(child, in: &translator, reportContents: reportContents)
      }
    }
  }

  private static func error(_ error: SystemCallError, path: String) -> QuireError {
    guard error.errno == ENOSPC || error.errno == EMFILE else {
      return QuireError.system(error, action: "watch", path: path)
    }
    let limit =
      (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8))?
      .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
    return QuireError(
      .limitReached,
      "Could not watch “\(path)”: the system's limit of inotify watches is reached (fs.inotify.max_user_watches = \(limit))."
        + " Raise it, for example with: sudo sysctl fs.inotify.max_user_watches=524288",
      path: path, cause: error)
  }
}
