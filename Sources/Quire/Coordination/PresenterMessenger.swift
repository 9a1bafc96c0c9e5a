import CQuireShims
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Sends the messages of one coordinated access to the presenters it concerns, in this process
/// and in others. Connections to other processes stay open until ``finish()``: closing them is
/// what tells those processes to run their presenters' reacquirers (and a crash closes them too).
final class PresenterMessenger {
  /// How long a presenter may take to save or relinquish before the access goes on without it.
  static let replyTimeout: Duration = .seconds(10)

  private let excluded: (any FilePresenter)?
  private var connections: [String: Int32] = [:]
  private let reacquirers = ReacquirerList()
  private var relinquishedLocally: PresenterQueue?
  /// The runtime folder's index as this access reads it (each folder listed once).
  private let listing = PresenterListing()

  init(excluding presenter: (any FilePresenter)?) { excluded = presenter }

  /// The presenters concerned by an access to `path`.
  func matches(of path: String) -> [PresenterMatch] {
    PresenterRegistry.shared.localMatches(of: path, excluding: excluded)
      + PresenterRegistry.shared.remoteMatches(of: path, entries: listing.entries(in:))
  }

  /// Sends one message per match (built by `message`) and, for messages that wait, waits for
  /// every answer at once (at most `timeout`, and not once `isCancelled`); returns the errors
  /// the presenters answered with.
  @discardableResult
  func send(
    _ matches: [PresenterMatch], timeout: Duration = replyTimeout,
    isCancelled: () -> Bool = { false }, progress: DownloadProgress? = nil,
    _ message: (PresenterMatch) -> PresenterMessage?
  ) -> [String] {
    let waiting = Waiting()
    var remoteWaits: [Int32] = []
    for match in matches {
      guard let message = message(match) else { continue }
      if let owner = match.owner {
        guard let fd = connection(to: owner), Self.write(message, to: fd) else { continue }
        if message.waitsForReply { remoteWaits.append(fd) }
      } else if let queue = PresenterRegistry.shared.queue(of: match.number) {
        if message.kind == .relinquishToReader || message.kind == .relinquishToWriter {
          relinquishedLocally = queue
        }
        if message.waitsForReply {
          waiting.add()
          queue.send(message, reacquirers: reacquirers, progress: progress) {
            waiting.done($0.error)
          }
        } else {
          queue.send(message)
        }
      }
    }
    let deadline = ContinuousClock.now + timeout
    var errors: [String] = []
    for fd in remoteWaits {
      if let error = Self.readReply(
        from: fd, until: deadline, isCancelled: isCancelled, progress: progress)?.error
      {
        errors.append(error)
      }
    }
    waiting.wait(until: deadline, isCancelled: isCancelled)
    return errors + waiting.errors
  }

  /// Ends the access: closes the connections and runs this process's reacquirers.
  func finish() {
    for fd in connections.values { close(fd) }
    connections = [:]
    relinquishedLocally?.send(
      PresenterMessage(kind: .reacquire, presenter: 0), reacquirers: reacquirers)
    relinquishedLocally = nil
  }

  private func connection(to owner: String) -> Int32? {
    if let fd = connections[owner] { return fd }
    let fd = cquire_unix_connect(CoordinationRuntime.socket(of: owner))
    guard fd >= 0 else {
      let error = cquire_errno()
      if error == ECONNREFUSED || error == ENOENT { PresenterRegistry.shared.forget(owner: owner) }
      return nil
    }
    connections[owner] = fd
    return fd
  }

  private static func write(_ message: PresenterMessage, to fd: Int32) -> Bool {
    guard var data = try? JSONEncoder().encode(message) else { return false }
    data.append(UInt8(ascii: "\n"))
    return data.withUnsafeBytes { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.send(
          fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
        if written < 0 && cquire_errno() == EINTR { continue }
        guard written > 0 else { return false }
        offset += written
      }
      return true
    }
  }

  /// Reads one answer line; nil if none came in time. (A failed save still lets the access go
  /// on, as on Apple's systems; a failed download is the reader's error.)
  private static func readReply(
    from fd: Int32, until deadline: ContinuousClock.Instant, isCancelled: () -> Bool,
    progress: DownloadProgress? = nil
  ) -> PresenterReply? {
    var byte: UInt8 = 0
    var line: [UInt8] = []
    while true {
      let left = deadline - .now
      guard left > .zero, !isCancelled() else { return nil }
      var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      // Slices of at most 100 ms, so a cancelled wait ends promptly.
      let milliseconds = Int32(min(left.components.seconds * 1000 + 1, 100))
      let ready = poll(&entry, 1, milliseconds)
      if ready < 0 && cquire_errno() == EINTR { continue }
      guard ready >= 0 else { return nil }
      if ready == 0 { continue }
      let count = read(fd, &byte, 1)
      if count < 0 && cquire_errno() == EINTR { continue }
      if count <= 0 { return nil }
      if byte == UInt8(ascii: "\n") {
        let reply = try? JSONDecoder().decode(PresenterReply.self, from: Data(line))
        guard let completed = reply?.completed, let total = reply?.total else { return reply }
        progress?(completed, total)  // a provider's progress line: its answer comes later
        line = []
        continue
      }
      line.append(byte)
    }
  }
}

/// Counts answers still to come from presenters of this process.
private final class Waiting: Sendable {
  private let count = Mutex(0)
  private let answered = Mutex<[String]>([])
  private let condition = DispatchSemaphore(value: 0)
  func add() { count.withLock { $0 += 1 } }
  func done(_ error: String?) {
    if let error { answered.withLock { $0.append(error) } }
    condition.signal()
  }
  /// The errors answered so far.
  var errors: [String] { answered.withLock { $0 } }
  func wait(until deadline: ContinuousClock.Instant, isCancelled: () -> Bool) {
    var total = count.withLock { $0 }
    while total > 0 {
      let left = deadline - .now
      guard left > .zero, !isCancelled() else { return }
      // Slices of at most 100 ms, so a cancelled wait ends promptly.
      let slice = min(left, .milliseconds(100))
      let nanoseconds =
        slice.components.seconds * 1_000_000_000 + slice.components.attoseconds
        / 1_000_000_000
      if condition.wait(timeout: .now() + .nanoseconds(Int(max(0, nanoseconds)))) == .success {
        total -= 1
      }
    }
  }
}
