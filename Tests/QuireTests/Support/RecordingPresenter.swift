import Foundation
import Quire
import Synchronization

/// A file presenter that records every message it gets, for tests to wait on.
final class RecordingPresenter: FilePresenter {
  private let url: Mutex<URL>
  private let log = Mutex<[String]>([])

  init(_ url: URL) { self.url = Mutex(url.standardizedFileURL) }

  nonisolated var presentedItemURL: URL? { url.withLock { $0 } }

  /// The messages so far, such as `changed` or `moved /new/path`.
  var messages: [String] { log.withLock { $0 } }

  /// Waits (up to `seconds`) for a message satisfying `matches`: returns it as soon as it is
  /// recorded, or nil at the deadline.
  func waitFor(seconds: Double = 60, _ matches: @escaping @Sendable (String) -> Bool) async
    -> String?
  {
    let (stream, continuation) = AsyncStream.makeStream(of: String.self)
    let earlier = log.withLock { log in
      waiters.withLock { $0.append(continuation) }
      return log
    }
    if let found = earlier.first(where: matches) { return found }
    return try? await withDeadline(seconds: seconds) { () async -> String? in
      for await message in stream where matches(message) { return message }
      return nil
    } ?? nil
  }

  private let waiters = Mutex<[AsyncStream<String>.Continuation]>([])

  private func record(_ message: String) {
    log.withLock { log in
      log.append(message)
      for waiter in waiters.withLock({ $0 }) { waiter.yield(message) }
    }
  }

  func relinquishPresentedItemToReader() async -> FilePresenterReacquirer? {
    record("relinquish to reader")
    return { [self] in record("reacquired") }
  }
  func relinquishPresentedItemToWriter() async -> FilePresenterReacquirer? {
    record("relinquish to writer")
    return { [self] in record("reacquired") }
  }
  func savePresentedItemChanges() async throws { record("save") }
  func accommodatePresentedItemDeletion() async throws { record("deleted") }
  func presentedItemDidMove(to newURL: URL) async {
    url.withLock { $0 = newURL }
    record("moved \(newURL.path)")
  }
  func presentedItemDidChange() async { record("changed") }
  func presentedSubitemDidAppear(at url: URL) async { record("subitem appeared \(url.path)") }
  func presentedSubitemDidChange(at url: URL) async { record("subitem changed \(url.path)") }
  func presentedSubitem(at oldURL: URL, didMoveTo newURL: URL) async {
    record("subitem moved \(oldURL.path) -> \(newURL.path)")
  }
  func accommodatePresentedSubitemDeletion(at url: URL) async throws {
    record("subitem deleting \(url.path)")
  }
}
