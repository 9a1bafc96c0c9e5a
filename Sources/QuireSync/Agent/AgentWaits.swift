/// The waits an agent answers (``SyncBarrier``): the requests it made in its own folder
/// (``SyncAgent/settle()``), each with the caller waiting for it, which of them its monitor
/// heard, and, for the drive's agent, the waiters' requests it is answering.
struct AgentWaits {
  /// The agent's own requests, by name, each with the caller waiting for its answer.
  var own: [String: CheckedContinuation<Bool, Never>] = [:]
  /// The agent's own requests its monitor heard: answered at the next catch-up.
  var heard: Set<String> = []
  /// The drive's agent: waiters' requests being answered (``SyncAgent/answer(_:)``).
  var answering: Set<String> = []
  /// Whether the agent's run has returned: it has nothing left to sync, and no monitor.
  var ended = false
}
