import Foundation
import QuireCore

#if canImport(Glibc)
  import Glibc
#endif

/// The agent's side of ``SyncBarrier``.
///
/// Each agent can settle: make a request file of its own in its folder, and return once its
/// monitor heard it and a push and a pull begun after that are done with nothing held back.
/// The kernel reports a folder's events in order, so by then every change made there before
/// the request is uploaded, and every change the server held when it was heard is applied.
/// The drive's agent answers a waiter's request by looking at what is shared with the account
/// (a share made, renamed or revoked before the request is followed), having each share's agent
/// settle, then settling itself (which covers what the shares' agents wrote in the drive
/// meanwhile, such as a read-only share's "(my changes)" copy), and only then renaming the
/// request to its answer.
extension SyncAgent {
  /// The monitor heard the request `name` appear at the top of the folder.
  func heardRequest(_ name: String) {
    if waits.own[name] != nil {
      waits.heard.insert(name)
      request(pull: true)
    } else if share == nil && !waits.answering.contains(name) {
      waits.answering.insert(name)
      Task { await answer(name) }
    }  // else another share's agent's request in the same folder
  }

  /// The watch (re)started, or lost events: requests made before have no event of their own,
  /// and a whole scan follows, so they count as heard.
  func armedWatch() {
    for name in waits.own.keys { heardRequest(name) }
    guard share == nil else { return }
    for name in (try? Sys.names(in: folder.path)) ?? [] where SyncBarrier.isRequest(name[...]) {
      heardRequest(name)
    }
  }

  /// At a catch-up: answers the agent's own requests heard, unless an item is held back (a
  /// writer still at it, a failed upload), which the next catch-up tries again.
  func answerWaits() {
    guard !waits.heard.isEmpty, putBacksPending.isEmpty, failedPaths.isEmpty else { return }
    for name in waits.heard {
      try? Sys.unlink(folder.path + "/" + name)
      waits.own.removeValue(forKey: name)?.resume(returning: true)
    }
    waits.heard = []
  }

  /// The drive's agent: answers a waiter's request once the shares' agents and then this one
  /// have settled. If one could not ask (its folder unwritable), no answer comes, and the
  /// waiter says at its timeout that the folder is not in sync.
  func answer(_ name: String) async {
    defer { waits.answering.remove(name) }
    // Shares made, renamed or revoked before the wait began are followed first.
    await lookAtShares()
    let shares = Array(shareAgents.values)
    let settled = await withTaskGroup(of: Bool.self) { group in
      for agent in shares { group.addTask { await agent.settle() } }
      return await group.allSatisfy { $0 }
    }
    guard settled, await settle() else { return }
    SyncBarrier.reply(to: name, in: folder.path)
  }

  /// The drive's agent: returns once a look at what is shared with the account, begun after
  /// the call, has heard the server (each new share has its agent, each revoked one has left
  /// the device); looks that could not are tried again, and the waiter's timeout bounds the
  /// wait. At once if the agent's run has ended.
  func lookAtShares() async {
    await withCheckedContinuation { continuation in
      if !shareLooks.ask(continuation) { continuation.resume() }
    }
  }

  /// Returns once this agent has synced everything that happened before the call (see the
  /// type's discussion); at once if its run has ended (it has nothing left to sync). False if
  /// it could not make its request.
  func settle() async -> Bool {
    guard !waits.ended else { return true }
    let name = SyncBarrier.requestName()
    let path = folder.path + "/" + name
    return await withCheckedContinuation { continuation in
      do {
        // A share's agent just started may not have made its folder yet.
        try Sys.makeFolders(folder.path)
        Sys.close(try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600))
        waits.own[name] = continuation
      } catch {
        continuation.resume(returning: false)
      }
    }
  }

  /// The run ended: the agent has nothing left to sync, so whoever waits on it goes on.
  func endWaits() {
    waits.ended = true
    for (name, continuation) in waits.own {
      try? Sys.unlink(folder.path + "/" + name)
      continuation.resume(returning: true)
    }
    waits.own = [:]
    waits.heard = []
  }
}
