import Foundation
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's side of ``SyncBarrier``: hearing a wait's request, and answering it once
/// everything that happened before it is synced.
extension SyncAgent {
  /// The monitor heard the request `name` appear at the top of the folder: a pull that begins
  /// after it reads the server's journal as it is now, and every local change made before it
  /// was heard before it (the kernel reports a folder's events in order), so its push is asked
  /// for already. The answer waits for the catch-up after both.
  func heardWait(_ name: String) {
    if share != nil && settling[name] == nil { return }  // another share's agent's request
    if !heardWaits.contains(name) { heardWaits.append(name) }
    request(pull: true)
  }

  /// The watch (re)started, or lost events: requests made before have no event of their own,
  /// and a whole scan follows, so they count as heard.
  func armedWatch() {
    if share == nil {
      for name in (try? Sys.names(in: folder.path)) ?? [] where SyncBarrier.isRequest(name[...]) {
        heardWait(name)
      }
    } else {
      for name in settling.keys { heardWait(name) }
    }
  }

  /// At a catch-up: answers the requests heard, unless an item is held back (a writer still
  /// at it, an error), which the next catch-up tries again. The drive's agent first has each
  /// share's agent settle in the same way.
  func answerWaits() {
    guard !heardWaits.isEmpty, putBacksPending.isEmpty, failedPaths.isEmpty else { return }
    let names = heardWaits
    heardWaits = []
    if share != nil {
      for name in names {
        try? Sys.unlink(folder.path + "/" + name)
        settling.removeValue(forKey: name)?.resume(returning: true)
      }
      return
    }
    let shares = Array(shareAgents.values)
    Task {
      for agent in shares where !(await agent.settle()) { return }  // the waiter times out
      for name in names {
        try? Sys.rename(
          folder.path + "/" + name, folder.path + "/" + SyncBarrier.answerName(for: name))
      }
    }
  }

  /// A share's agent: returns once it has synced everything that happened before the call,
  /// with a request of its own in its folder, answered as the drive's are. False if it could
  /// not ask (its folder unwritable) or its run ended.
  func settle() async -> Bool {
    guard !ended else { return false }
    let name = SyncBarrier.requestName()
    let path = folder.path + "/" + name
    return await withCheckedContinuation { continuation in
      do {
        Sys.close(try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600))
        settling[name] = continuation
      } catch {
        continuation.resume(returning: false)
      }
    }
  }

  /// The run ended: no wait on this agent is answered any more.
  func endWaits() {
    ended = true
    for (name, continuation) in settling {
      try? Sys.unlink(folder.path + "/" + name)
      continuation.resume(returning: false)
    }
    settling = [:]
    heardWaits = []
  }
}
