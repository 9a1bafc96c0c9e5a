import Crypto
import Foundation
import GRDB
import HummingbirdBcrypt
import QuireSyncProtocol

/// Who is asking: a signed-in device of an account.
struct AuthenticatedDevice: Sendable {
  var id: String
  var user: Int64
}

extension ServerStore {
  /// Adds the account `name` with `password` (stored as a bcrypt hash).
  public func addUser(name: String, password: String) throws(SyncError) {
    guard !name.isEmpty, name.utf8.count <= 64,
      !name.contains(where: { $0.isWhitespace || $0 == "/" })
    else {
      throw SyncError(
        .malformed, "“\(name)” is not a user name: use 1–64 characters without spaces or “/”.")
    }
    guard password.utf8.count >= 8 else {
      throw SyncError(.malformed, "The password is too short: use at least 8 characters.")
    }
    let hash = Bcrypt.hash(password, cost: 10)
    try write { db throws in
      if try Int64.fetchOne(db, sql: "SELECT id FROM users WHERE name = ?", arguments: [name])
        != nil
      {
        throw SyncError(.alreadyExists, "The user “\(name)” exists already.")
      }
      try db.execute(
        sql: "INSERT INTO users(name, passwordHash, created) VALUES (?, ?, ?)",
        arguments: [name, hash, Date().timeIntervalSince1970])
    }
  }

  /// Checks `user`'s password and registers a device named `device`, returning its token (kept
  /// only as a hash here).
  func signIn(user: String, password: String, device: String) throws(SyncError) -> SignInResponse {
    let account = try read { db in
      try Row.fetchOne(
        db, sql: "SELECT id, passwordHash FROM users WHERE name = ?", arguments: [user])
    }
    guard let account, Bcrypt.verify(password, hash: account["passwordHash"]) else {
      throw SyncError(.badCredentials, "The user name or password is wrong.")
    }
    let token = Self.randomToken()
    // Hex, so an identifier never starts with "-" (quire server revoke ID would take it for
    // an option).
    var generator = SystemRandomNumberGenerator()
    let id = (0..<6).map { _ in
      String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }.joined()
    let name = String(device.prefix(128))
    try write { db in
      try db.execute(
        sql: "INSERT INTO devices(id, user, name, tokenHash, created) VALUES (?, ?, ?, ?, ?)",
        arguments: [
          id, account["id"] as Int64, name, ContentHash(of: Array(token.utf8)).hex,
          Date().timeIntervalSince1970,
        ])
    }
    return SignInResponse(device: id, token: token, user: user)
  }

  /// The device whose token is `token`, unless unknown or revoked.
  func device(token: String) throws(SyncError) -> AuthenticatedDevice? {
    let hash = ContentHash(of: Array(token.utf8)).hex
    return try read { db in
      try Row.fetchOne(
        db, sql: "SELECT id, user FROM devices WHERE tokenHash = ? AND revoked = 0",
        arguments: [hash]
      ).map { AuthenticatedDevice(id: $0["id"], user: $0["user"]) }
    }
  }

  /// The devices signed in to `user`'s account.
  public func devices(of user: String) throws(SyncError) -> [DeviceRecord] {
    try read { db throws in
      guard
        let id = try Int64.fetchOne(
          db, sql: "SELECT id FROM users WHERE name = ?", arguments: [user])
      else {
        throw SyncError(
          .notFound, "There is no user “\(user)”. Add one with quire server add-user.")
      }
      return try Row.fetchAll(
        db, sql: "SELECT id, name, created, revoked FROM devices WHERE user = ? ORDER BY created",
        arguments: [id]
      ).map {
        DeviceRecord(
          id: $0["id"], name: $0["name"], created: Date(timeIntervalSince1970: $0["created"]),
          revoked: $0["revoked"])
      }
    }
  }

  /// Revokes the device `id`: its token stops working at once.
  public func revoke(device id: String) throws(SyncError) {
    try write { db throws in
      try db.execute(sql: "UPDATE devices SET revoked = 1 WHERE id = ?", arguments: [id])
      if db.changesCount == 0 {
        throw SyncError(
          .notFound, "There is no device “\(id)”. List them with quire server devices NAME.")
      }
    }
  }

  /// 32 random bytes as base64url, without padding.
  static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    return Data(bytes).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}
