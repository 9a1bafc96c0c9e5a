import CQuireShims
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The socket on which this process hears about other processes' coordinated accesses to the
/// items it presents. One thread polls the listening socket and the open connections, and hands
/// each message to the presenter's queue; answers go back on the same connection. When the
/// other process closes its connection (its access ended, or it died), the reacquirers of the
/// presenters it made relinquish run.
final class PresenterServer: Sendable {
  private let listener: Int32

  init(socket path: String) throws(QuireError) {
    unlink(path)
    let fd = cquire_unix_listen(path)
    guard fd >= 0 else {
      throw .system(
        SystemCallError(call: "bind", errno: cquire_errno()), action: "listen on", path: path)
    }
    listener = fd
    BackgroundThread.start("quire-presenters") { [listener] in Self.run(listener: listener) }
  }

  private static func run(listener: Int32) {
    var connections: [Int32: ServerConnection] = [:]
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
      for fd in connections.keys { fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0)) }
      let ready = poll(&fds, nfds_t(fds.count), -1)
      if ready < 0 { continue }
      if fds[0].revents != 0 {
        let fd = accept(listener, nil, nil)
        if fd >= 0 {
          _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
          _ = fcntl(fd, F_SETFL, O_NONBLOCK)
          connections[fd] = ServerConnection(fd: fd)
        }
      }
      for entry in fds.dropFirst() where entry.revents != 0 {
        guard let connection = connections[entry.fd] else { continue }
        let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
        if count > 0 {
          for line in connection.received(buffer[0..<count]) { connection.dispatch(line) }
        } else if count == 0 || (cquire_errno() != EAGAIN && cquire_errno() != EINTR) {
          connections[entry.fd] = nil
          connection.ended()
        }
      }
    }
  }
}

/// One connection from a coordinating process.
final class ServerConnection: Sendable {
  private struct State {
    var pending = 0
    var ended = false
    var closed = false
    var partial: [UInt8] = []
    var relinquished: PresenterQueue?
  }

  let fd: Int32
  private let state = Mutex(State())
  private let reacquirers = ReacquirerList()

  init(fd: Int32) { self.fd = fd }

  /// Adds received bytes; returns the complete lines.
  func received(_ bytes: ArraySlice<UInt8>) -> [[UInt8]] {
    state.withLock { state in
      state.partial.append(contentsOf: bytes)
      var lines: [[UInt8]] = []
      while let end = state.partial.firstIndex(of: UInt8(ascii: "\n")) {
        lines.append(Array(state.partial[..<end]))
        state.partial.removeSubrange(...end)
      }
      return lines
    }
  }

  func dispatch(_ line: [UInt8]) {
    guard let message = try? JSONDecoder().decode(PresenterMessage.self, from: Data(line)) else {
      return
    }
    guard let queue = PresenterRegistry.shared.queue(of: message.presenter) else {
      if message.waitsForReply { reply(PresenterReply(error: nil)) }
      return
    }
    if message.kind == .didMove, let path = message.path {
      PresenterRegistry.shared.move(message.presenter, to: path)
    }
    let waits = message.waitsForReply
    state.withLock {
      $0.pending += 1
      if message.kind == .relinquishToReader || message.kind == .relinquishToWriter {
        $0.relinquished = queue
      }
    }
    var progress: DownloadProgress?
    if message.kind == .provide {
      progress = { [self] (completed: Int64, total: Int64) in
        reply(PresenterReply(error: nil, completed: completed, total: total))
      }
    }
    queue.send(message, reacquirers: reacquirers, progress: progress) { [self] answer in
      if waits { reply(answer) }
      finishOne()
    }
  }

  /// The other side closed: run the reacquirers after everything it sent, then close.
  func ended() {
    let queue: PresenterQueue? = state.withLock {
      $0.ended = true
      if $0.relinquished != nil { $0.pending += 1 }
      return $0.relinquished
    }
    if let queue {
      queue.send(
        PresenterMessage(kind: .reacquire, presenter: 0), reacquirers: reacquirers,
        completion: { [self] _ in finishOne() })
    } else {
      finishOne(counting: false)
    }
  }

  private func reply(_ answer: PresenterReply) {
    guard var data = try? JSONEncoder().encode(answer) else { return }
    data.append(UInt8(ascii: "\n"))
    state.withLock { state in
      guard !state.closed else { return }
      // send with MSG_NOSIGNAL: the asking process may have exited, and a plain write to its
      // closed socket would kill this process with SIGPIPE.
      data.withUnsafeBytes { _ = send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
  }

  private func finishOne(counting: Bool = true) {
    state.withLock { state in
      if counting { state.pending -= 1 }
      if state.ended && state.pending == 0 && !state.closed {
        state.closed = true
        close(fd)
      }
    }
  }
}
