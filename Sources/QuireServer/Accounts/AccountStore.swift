import Crypto
import Foundation
import HummingbirdBcrypt
import QuireSyncProtocol

/// Who is asking: a signed-in device of an account.
struct AuthenticatedDevice: Sendable {
  var id: String
  var user: Int64
}

/// The accounts: users, their devices and the devices' tokens (sign-in, registration,
/// revocation). Its tables are `users` and `devices`.
public struct AccountStore: StoreAggregate {
  let backend: StoreBackend
}

extension AccountStore {
  /// Adds the account `name` with `password` (stored as a bcrypt hash).
  public func addUser(name: String, password: String) throws(SyncError) {
    guard Self.isUserName(name) else {
      throw SyncError(
        .malformed,
        "“\(name.prefix(64))” is not a user name: use 1–64 characters without spaces, control characters or “/”."
      )
    }
    guard password.utf8.count >= 8 else {
      throw SyncError(.malformed, "The password is too short: use at least 8 characters.")
    }
    let hash = Bcrypt.hash(password, cost: 10)
    try write { db throws in
      if try db.value(Int64.self, "SELECT id FROM users WHERE name = ?", [name]) != nil {
        throw SyncError(.alreadyExists, "The user “\(name)” exists already.")
      }
      try db.execute(
        "INSERT INTO users(name, passwordHash, created) VALUES (?, ?, ?)",
        [name, hash, Date().timeIntervalSince1970])
    }
  }

  /// Checks `user`'s password and registers a device named `device`, returning its token (kept
  /// only as a hash here).
  ///
  /// An unknown user, a name no account can have (`"alice\0"`) and a wrong password get the
  /// same answer after the same bcrypt work, so neither the answer nor its time tells whether
  /// an account exists.
  ///
  /// With a `lifetime` (a browser's session), the device ends once unused for that long.
  func signIn(
    user: String, password: String, device: String, lifetime: Duration? = nil,
    now: Double = Date().timeIntervalSince1970
  ) throws(SyncError) -> SignInResponse {
    // NUL is the one character SQLite would cut a name at ("alice\0" found alice); names made
    // before the stricter rule of addUser still sign in.
    let account =
      !user.isEmpty && user.utf8.count <= 64 && !user.utf8.contains(0)
      ? try read { db -> (id: Int64, hash: String)? in
        guard let row = try db.row("SELECT id, passwordHash FROM users WHERE name = ?", [user])
        else { return nil }
        return (try row["id"], try row["passwordHash"])
      } : nil
    let verified = Bcrypt.verify(password, hash: account?.hash ?? Self.dummyHash)
    guard let account, verified else {
      throw SyncError(.badCredentials, "The user name or password is wrong.")
    }
    return try registerDevice(
      account: account.id, user: user, name: device, lifetime: lifetime, now: now)
  }

  /// A bcrypt hash of cost 10 (the accounts' own) that no password matches in practice: what an
  /// unknown user's sign-in is checked against, so it takes as long as a known one's.
  private static let dummyHash = Bcrypt.hash(UUID().uuidString, cost: 10)

  /// Whether `name` can be an account's: 1–64 bytes, no whitespace, control, bidi-control or
  /// format character, no “/”.
  static func isUserName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 64
      && !name.unicodeScalars.contains {
        $0.properties.isWhitespace || $0 == "/" || $0.properties.generalCategory == .control
          || $0.properties.generalCategory == .format
      }
  }

  /// Registers a device named `name` in `user`'s account without its password, returning its
  /// token: provisioning by whoever runs the server (a fleet of headless devices, the load
  /// benchmark's simulated devices).
  public func addDevice(user: String, name: String) throws(SyncError) -> SignInResponse {
    guard
      let account = try read({ db in
        try db.value(Int64.self, "SELECT id FROM users WHERE name = ?", [user])
      })
    else {
      throw SyncError(.notFound, "There is no user “\(user)”. Add one with quire server add-user.")
    }
    return try registerDevice(account: account, user: user, name: name)
  }

  /// Makes an app password for `user`'s WebDAV clients, labelled `label`: a device that signs
  /// in with HTTP Basic (the account's name and this password) and nowhere else. Returns it
  /// (the password is the token, kept only as a hash here).
  public func addAppPassword(user: String, label: String) throws(SyncError) -> SignInResponse {
    let account = try accountID(named: user)
    return try registerDevice(
      account: account, user: user, name: "\(label) (app password)", appPassword: true)
  }

  /// The app password `password` of the account `user`, unless unknown or revoked. A random
  /// 256-bit secret, checked by its hash in one look-up: guessing needs no slowing down.
  func appPassword(user: String, password: String) throws(SyncError) -> AuthenticatedDevice? {
    let hash = ContentHash(of: Array(password.utf8)).hex
    return try readStatement { db in
      try db.row(
        """
        SELECT d.id, d.account FROM devices d JOIN users u ON u.id = d.account
          WHERE d.tokenHash = ? AND d.revoked = 0 AND d.appPassword = 1 AND u.name = ?
        """, [hash, user]
      ).map { try AuthenticatedDevice(id: $0["id"], user: $0["account"]) }
    }
  }

  private func registerDevice(
    account: Int64, user: String, name device: String, appPassword: Bool = false,
    lifetime: Duration? = nil, now: Double = Date().timeIntervalSince1970
  ) throws(SyncError) -> SignInResponse {
    let seconds = lifetime.map(Self.seconds)
    let token = Self.randomToken()
    // Hex, so an identifier never starts with "-" (quire server revoke ID would take it for
    // an option).
    var generator = SystemRandomNumberGenerator()
    let id = (0..<6).map { _ in
      String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }.joined()
    let name = String(device.prefix(128))
    _ = try write { db in
      try db.execute(
        """
        INSERT INTO devices(id, account, name, tokenHash, created, appPassword, expires,
          lifetime) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """,
        [
          id, account, name, ContentHash(of: Array(token.utf8)).hex, now, appPassword,
          seconds.map { now + $0 }, seconds,
        ])
    }
    return SignInResponse(device: id, token: token, user: user)
  }

  /// The device whose token is `token`, unless unknown, revoked or expired (a browser's
  /// session unused for its lifetime). Using a session moves its end on, written at most once
  /// each half lifetime, so a page in use never signs out and reading costs no write.
  func device(token: String, now: Double = Date().timeIntervalSince1970) throws(SyncError)
    -> AuthenticatedDevice?
  {
    let hash = ContentHash(of: Array(token.utf8)).hex
    let found = try readStatement { db in
      try db.row(
        """
        SELECT id, account, expires, lifetime FROM devices
          WHERE tokenHash = ? AND revoked = 0 AND appPassword = 0
        """, [hash]
      ).map { row in
        (
          device: try AuthenticatedDevice(id: row["id"], user: row["account"]),
          expires: try row["expires"] as Double?, lifetime: try row["lifetime"] as Double?
        )
      }
    }
    guard let found else { return nil }
    if let expires = found.expires, let lifetime = found.lifetime {
      guard SessionLifetime.isLive(expires: expires, now: now) else { return nil }
      if SessionLifetime.needsRenewal(expires: expires, lifetime: lifetime, now: now) {
        // A renewal that fails leaves the session as it is, live now; the next use tries again.
        _ = try? writeStatement { db in
          try db.execute(
            "UPDATE devices SET expires = ? WHERE id = ? AND expires < ?",
            [now + lifetime, found.device.id, now + lifetime])
        }
      }
    }
    return found.device
  }

  /// The token hashes of every revoked or expired device: what a long-lived stream checks its
  /// own against (``RevokedTokens``), one query for all streams.
  func revokedTokenHashes(now: Double = Date().timeIntervalSince1970) throws(SyncError)
    -> Set<String>
  {
    try readStatement { db in
      // Sessions that ended in the last day: one that ended before had its streams ended then,
      // and no new one starts with it, so the list does not grow with every sign-in.
      Set(
        try db.values(
          String.self,
          "SELECT tokenHash FROM devices WHERE revoked = 1 OR (expires <= ? AND expires > ?)",
          [now, now - 86_400]))
    }
  }

  /// The devices signed in to `user`'s account.
  public func devices(of user: String) throws(SyncError) -> [DeviceRecord] {
    try read { db throws in
      guard
        let id = try db.value(Int64.self, "SELECT id FROM users WHERE name = ?", [user])
      else {
        throw SyncError(
          .notFound, "There is no user “\(user)”. Add one with quire server add-user.")
      }
      let now = Date().timeIntervalSince1970
      return try db.rows(
        """
        SELECT id, name, created, revoked, expires FROM devices WHERE account = ?
          ORDER BY created
        """, [id]
      ).map {
        // An expired browser session is listed as revoked: its token works no more.
        let expires: Double? = try $0["expires"]
        let ended = expires.map { !SessionLifetime.isLive(expires: $0, now: now) } ?? false
        return try DeviceRecord(
          id: $0["id"], name: $0["name"], created: Date(timeIntervalSince1970: $0["created"]),
          revoked: ($0["revoked"] as Bool) || ended)
      }
    }
  }

  /// Revokes the device `id`: its token stops working at once.
  public func revoke(device id: String) throws(SyncError) {
    try write { db throws in
      if try db.execute("UPDATE devices SET revoked = 1 WHERE id = ?", [id]) == 0 {
        throw SyncError(
          .notFound, "There is no device “\(id)”. List them with quire server devices NAME.")
      }
    }
  }

  private static func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }

  /// 32 random bytes as base64url, without padding.
  static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    while true {
      let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
      let token = Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        .replacingOccurrences(of: "=", with: "")
      // Never a leading "-": an app password pasted after a command (rclone obscure, litmus)
      // would be taken for an option. One token in 64 is drawn again.
      if token.first != "-" { return token }
    }
  }

  /// The name of the account `id`, if there is one.
  func accountName(_ id: Int64) throws(SyncError) -> String? {
    try readStatement { db in
      try db.value(String.self, "SELECT name FROM users WHERE id = ?", [id])
    }
  }

  /// The identity of the account named `name`; `notFound` if there is none.
  func accountID(named name: String) throws(SyncError) -> Int64 {
    try read { db throws in try Self.account(db, named: name) }
  }

  /// The account named `name`; `notFound` if there is none.
  static func account(_ db: any SQLSession, named name: String) throws -> Int64 {
    guard let id = try db.value(Int64.self, "SELECT id FROM users WHERE name = ?", [name]) else {
      throw SyncError(.notFound, "There is no account “\(name)” on this server.")
    }
    return id
  }
}
