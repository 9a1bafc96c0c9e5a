import Synchronization

/// Slows password guessing: after five wrong passwords for one user name, or from one address,
/// the next attempt must wait five seconds, and each one after twice as long as the one before
/// (up to fifteen minutes: sixty guesses take days, not seconds), and
/// is answered `429 rateLimited` with `Retry-After` until then. A right password clears the
/// user's count, not the address's. The state is a plain value (``Ledger``) and the time a
/// parameter, so a test advances a manual clock instead of sleeping.
final class SignInThrottle: Sendable {
  /// Failures recorded per key, and when the key may try again.
  struct Ledger: Sendable {
    struct Entry: Sendable {
      var failures = 0
      var blockedUntil: ContinuousClock.Instant?
    }
    /// Wrong passwords allowed before the waits begin.
    var freeFailures = 5
    /// The first wait.
    var first: Duration = .seconds(5)
    /// The longest wait.
    var longest: Duration = .seconds(15 * 60)
    private(set) var entries: [String: Entry] = [:]

    /// How long `keys` must still wait at `now`; nil if they may try.
    func wait(_ keys: [String], now: ContinuousClock.Instant) -> Duration? {
      let until = keys.compactMap { entries[$0]?.blockedUntil }.max()
      guard let until, until > now else { return nil }
      return until - now
    }

    /// Records a wrong password for each of `keys` at `now`.
    mutating func failed(_ keys: [String], now: ContinuousClock.Instant) {
      for key in keys {
        var entry = entries[key] ?? Entry()
        entry.failures += 1
        let over = entry.failures - freeFailures
        if over >= 0 {
          let seconds = over >= 20 ? longest : min(longest, first * (1 << over))
          entry.blockedUntil = now + seconds
        }
        entries[key] = entry
      }
      // Forget keys whose wait is over once there are many, so a scan of names cannot grow
      // the ledger without bound.
      if entries.count > 100_000 {
        entries = entries.filter { ($0.value.blockedUntil ?? now) > now }
      }
    }

    /// Clears `key` (a right password for that user).
    mutating func succeeded(_ key: String) { entries[key] = nil }
  }

  private let ledger: Mutex<Ledger>

  /// A throttle whose first wait, after the free failures, is `first`.
  init(first: Duration = .seconds(5)) {
    var ledger = Ledger()
    ledger.first = first
    self.ledger = Mutex(ledger)
  }

  /// The key of a user name.
  static func user(_ name: String) -> String { "user:" + name }
  /// The key of an address.
  static func address(_ address: String) -> String { "address:" + address }

  /// How long an attempt for `user` from `address` must wait; nil if it may go ahead.
  func wait(user: String, address: String, now: ContinuousClock.Instant = .now) -> Duration? {
    ledger.withLock { $0.wait([Self.user(user), Self.address(address)], now: now) }
  }

  /// Records the outcome of an attempt.
  func record(
    user: String, address: String, succeeded: Bool, now: ContinuousClock.Instant = .now
  ) {
    ledger.withLock { ledger in
      if succeeded {
        ledger.succeeded(Self.user(user))
      } else {
        ledger.failed([Self.user(user), Self.address(address)], now: now)
      }
    }
  }
}
