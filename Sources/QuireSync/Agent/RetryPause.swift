import QuireSyncProtocol

/// How long the agent waits before it tries a failed round again.
///
/// While the server or the network is away, the pause doubles from 100 ms to at most 5 s, so a
/// server that comes back is found soon. While this device's disk is full, a round is tried
/// again once a minute: trying sooner only fetches the same bytes to fail at the same place.
/// Either way, a change in the folder (where a person frees space) or from the server asks
/// for a round at once. A pure value: the agent sleeps, this decides for how long.
struct RetryPause {
  /// The first pause after a round that failed for want of the server.
  static let shortest = Duration.milliseconds(100)
  /// The longest pause while the server stays away.
  static let longest = Duration.seconds(5)
  /// The pause while this device's disk is full.
  static let whileDiskIsFull = Duration.seconds(60)

  private var next = Self.shortest

  /// The pause before trying again after a round that failed with `error`.
  mutating func pause(after error: any Error) -> Duration {
    if DiskFull.caused(error) { return Self.whileDiskIsFull }
    defer { next = min(next * 2, Self.longest) }
    return next
  }

  /// A round went through: the next failure waits the shortest pause again.
  mutating func reset() { next = Self.shortest }
}
