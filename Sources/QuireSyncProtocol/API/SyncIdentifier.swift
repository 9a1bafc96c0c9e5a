/// The rules for the identifiers the protocol carries: an app's container identifier (such as
/// `iCloud.net.gacha.mydoc`) and an item's stable identity (a document's `user.quire.id`).
public enum SyncIdentifier {
  /// Throws ``SyncError/Code/invalidIdentifier`` unless `identifier` is 1–255 letters, digits,
  /// `.`, `-` or `_`, starting with a letter or digit.
  public static func checkContainer(_ identifier: String) throws(SyncError) {
    guard isPlain(identifier, maximum: 255) else {
      throw SyncError(
        .invalidIdentifier,
        "“\(identifier.prefix(80))” is not a container identifier: use letters, digits, “.”, “-” and “_”, such as iCloud.net.example.app."
      )
    }
  }

  /// Throws ``SyncError/Code/invalidIdentifier`` unless `identity` is 1–64 letters, digits, `-`
  /// or `_` (a UUID qualifies).
  public static func checkItem(_ identity: String) throws(SyncError) {
    guard isPlain(identity, maximum: 64), !identity.contains(".") else {
      throw SyncError(
        .invalidIdentifier,
        "“\(identity.prefix(80))” is not an item identity: use a UUID (letters, digits and “-”).")
    }
  }

  /// Throws ``SyncError/Code/invalidIdentifier`` unless `commit` is 1–64 letters, digits, `-`
  /// or `_` (a UUID qualifies). Nothing else: the server derives the identifiers of a conflict's
  /// revisions from it with `~`, which no device's identifier may then collide with.
  public static func checkCommit(_ commit: String) throws(SyncError) {
    guard isPlain(commit, maximum: 64), !commit.contains(".") else {
      throw SyncError(
        .invalidIdentifier,
        "“\(commit.prefix(80))” is not a commit identifier: use a UUID (letters, digits and “-”).")
    }
  }

  private static func isPlain(_ text: String, maximum: Int) -> Bool {
    let bytes = text.utf8
    guard (1...maximum).contains(bytes.count), let first = bytes.first, isAlphanumeric(first)
    else { return false }
    return bytes.allSatisfy {
      isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
        || $0 == UInt8(ascii: "_")
    }
  }

  private static func isAlphanumeric(_ byte: UInt8) -> Bool {
    (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
  }
}
