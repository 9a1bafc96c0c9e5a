/// How slowly a request's body may arrive before the server closes its connection.
///
/// The idle timeout cannot end a body sent a byte at a time: each byte is a decoded part, so the
/// connection never looks idle, and a few hundred such clients hold the server's connections for
/// good. The rule is Apache's `mod_reqtimeout` (`body=20,MinRate=500`): a body may keep the server
/// waiting ``grace``, plus one second for every ``minimumRate`` bytes that arrived. A client that
/// sends at least that fast is never cut off, however large its body. Only the time the server
/// was waiting on the client counts: while the server itself holds reads back (it is busy with
/// what it already has), the client is not to blame.
///
/// A value: the decision is a function of bytes and durations, tested alone
/// (`BodyPaceTests`); ``BodyPaceHandler`` applies it to a connection.
struct BodyPace: Sendable, Equatable {
  /// How long any body may keep the server waiting, whatever its size.
  var grace: Duration
  /// Bytes per second: each such many bytes that arrive extend the allowance by a second.
  var minimumRate: Int

  /// A pace whose rate is at least 1 and at most a GiB a second, so no arithmetic overflows.
  init(grace: Duration, minimumRate: Int) {
    self.grace = max(grace, .zero)
    self.minimumRate = min(max(minimumRate, 1), 1 << 30)
  }

  /// How long the server may wait on the client for a body of which `received` bytes arrived.
  func allowance(received: Int) -> Duration {
    let bytes = max(received, 0)
    let whole = bytes / minimumRate
    let part = bytes % minimumRate  // < 2^30, so the product below fits
    return grace + .seconds(whole) + .nanoseconds(part * 1_000_000_000 / minimumRate)
  }

  /// Whether a body of which `received` bytes arrived, after the server waited `waited` on the
  /// client for them, is too slow to keep its connection.
  func isTooSlow(received: Int, waited: Duration) -> Bool {
    waited > allowance(received: received)
  }
}
