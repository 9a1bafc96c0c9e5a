/// Which side of a sync an operation changes: this device's disk or the server.
public enum SyncSide: Hashable, Sendable, CustomStringConvertible {
  /// The files on this device.
  case local
  /// The server's copy, shared by every device.
  case remote

  /// `local` or `remote`.
  public var description: String { self == .local ? "local" : "remote" }
}
