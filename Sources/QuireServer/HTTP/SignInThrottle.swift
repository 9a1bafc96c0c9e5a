import Synchronization

/// Slows password guessing: after five wrong passwords for one user name, or from one address,
/// the next attempt must wait five seconds, and each one after twice as long as the one before
/// (up to fifteen minutes: sixty guesses take days, not seconds), and is answered
/// `429 rateLimited` with `Retry-After` until then.
///
/// An attempt is charged as a failure when it begins (``begin(user:address:now:)``), before its
/// bcrypt work, so a thousand guesses sent at once cannot all pass the check before any is
/// recorded; a right password takes the charge back and clears the user's count
/// (``finish(user:address:succeeded:)``). A loopback peer (a proxy in front, or the machine
/// itself) has no address key, or one wrong password behind nginx would lock everyone out; every
/// name that cannot be an account's shares one key, so no name grows the ledger. The state is
/// a plain value (``Ledger``) and the time a parameter, so a test advances a clock instead of
/// sleeping.
///
/// Names guessed through sharing are slowed the same way (``beginLookup(by:now:)``): a share
/// made with a name that is no account's is a wrong guess of the signed-in account making it, so
/// no account can list the server's accounts by sharing with every name.
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

    /// Takes back one failure of `key` (an attempt charged at its start that did not fail).
    mutating func refund(_ key: String) {
      guard var entry = entries[key] else { return }
      entry.failures -= 1
      if entry.failures < freeFailures { entry.blockedUntil = nil }
      entries[key] = entry.failures > 0 ? entry : nil
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

  /// The keys an attempt for `user` from `address` is counted under.
  static func keys(user: String, address: String) -> [String] {
    let name = AccountStore.isUserName(user) ? "user:" + user : "user:(not an account's name)"
    let loopback =
      address.isEmpty || address == "::1" || address.hasPrefix("127.")
      || address.hasPrefix("::ffff:127.")
    return loopback ? [name] : [name, "address:" + address]
  }

  /// Begins an attempt: how long it must wait (nothing charged), or nil once it is charged as a
  /// failure.
  func begin(user: String, address: String, now: ContinuousClock.Instant = .now) -> Duration? {
    let keys = Self.keys(user: user, address: address)
    return ledger.withLock { ledger in
      if let wait = ledger.wait(keys, now: now) { return wait }
      ledger.failed(keys, now: now)
      return nil
    }
  }

  /// Ends an attempt begun with ``begin(user:address:now:)``: a wrong password keeps its
  /// charge; a right one clears the user and takes the address's charge back; anything else
  /// (the database not answering) takes both back.
  func finish(user: String, address: String, succeeded: Bool?) {
    let keys = Self.keys(user: user, address: address)
    ledger.withLock { ledger in
      switch succeeded {
      case false?: break
      case true?:
        ledger.succeeded(keys[0])
        for key in keys.dropFirst() { ledger.refund(key) }
      case nil:
        for key in keys { ledger.refund(key) }
      }
    }
  }

  /// Begins a lookup of another account's name by the signed-in `account` (a share made with
  /// it): how long it must wait (nothing charged), or nil once it is charged as a wrong guess.
  func beginLookup(by account: Int64, now: ContinuousClock.Instant = .now) -> Duration? {
    let keys = ["lookup:\(account)"]
    return ledger.withLock { ledger in
      if let wait = ledger.wait(keys, now: now) { return wait }
      ledger.failed(keys, now: now)
      return nil
    }
  }

  /// Ends a lookup begun with ``beginLookup(by:now:)``: a name that is no account's keeps its
  /// charge; anything else takes it back. A found name never clears the count, so guesses
  /// mixed with a known name still wait.
  func finishLookup(by account: Int64, found: Bool) {
    guard found else { return }
    ledger.withLock { $0.refund("lookup:\(account)") }
  }
}
