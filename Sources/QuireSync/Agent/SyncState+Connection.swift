extension SyncState {
  /// The state's key for the connection.
  private static let connectionKey = "connection"

  /// How the agent last stood with its server (``SyncConnection/neverRun`` if it never
  /// recorded it, or recorded a word this version does not know).
  var connection: SyncConnection {
    value(Self.connectionKey).flatMap(SyncConnection.init(rawValue:)) ?? .neverRun
  }

  /// Records how the agent stands with its server.
  func setConnection(_ connection: SyncConnection) {
    setValue(connection.rawValue, for: Self.connectionKey)
  }
}
