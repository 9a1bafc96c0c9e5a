import Foundation
import Quire
import Synchronization

/// A presenter that records each change it is told of, at or inside its item (its own URL for a
/// change of the item itself), and lets a caller wait for one with a deadline.
///
/// Waiting does not consume anything: a wait that ran out leaves the presenter able to hear the
/// next change, and a change heard before the wait began counts.
final class SignallingPresenter: FilePresenter {
  private struct Waiter {
    var path: String?
    var continuation: CheckedContinuation<Bool, Never>
  }
  private struct State {
    var told: [String] = []
    var waiters: [UUID: Waiter] = [:]
  }
  private let url: URL
  private let state = Mutex(State())

  init(_ url: URL) { self.url = url.standardizedFileURL }

  var presentedItemURL: URL? { url }

  func presentedSubitemDidChange(at url: URL) async { record(url.standardizedFileURL.path) }
  func presentedItemDidChange() async { record(url.path) }

  /// Waits until told of a change of `item` (of anything, when nil), or told of it already, or
  /// `seconds` pass; true if told.
  func waitUntilTold(about item: URL? = nil, within seconds: Double) async -> Bool {
    let id = UUID()
    let path = item?.standardizedFileURL.path
    let deadline = Task {
      try? await Task.sleep(for: .seconds(seconds))  // the deadline, not a wait for the event
      expire(id)
    }
    defer { deadline.cancel() }
    return await withCheckedContinuation { continuation in
      let toldAlready = state.withLock { state in
        if state.told.contains(where: { path == nil || $0 == path }) { return true }
        state.waiters[id] = Waiter(path: path, continuation: continuation)
        return false
      }
      if toldAlready { continuation.resume(returning: true) }
    }
  }

  private func record(_ path: String) {
    let woken = state.withLock { state in
      state.told.append(path)
      let matching = state.waiters.filter { $0.value.path == nil || $0.value.path == path }
      for id in matching.keys { state.waiters[id] = nil }
      return matching.values.map(\.continuation)
    }
    for continuation in woken { continuation.resume(returning: true) }
  }

  private func expire(_ id: UUID) {
    let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
    waiter?.continuation.resume(returning: false)
  }
}
