/// How a device's agent last stood with its server, as the agent records it and everything that
/// shows it reads it (``SyncReport``, `quire sync status`, the app): one vocabulary, stored and
/// sent by its raw value.
public enum SyncConnection: String, Codable, Sendable, CaseIterable {
  /// The server answered the agent's last round.
  case online
  /// The server could not be reached; the agent tries again after a pause that grows while it
  /// stays away.
  case offline
  /// Syncing is paused on this device (`quire sync pause`).
  case paused
  /// The agent has not run on this folder yet.
  case neverRun = "never run"
}
