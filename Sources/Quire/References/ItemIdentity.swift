import CQuireShims
import Foundation

/// A document's stable identity — the UUID in its `user.quire.id` extended attribute that
/// survives renames, moves and safe-saves — for programs that track documents across paths,
/// such as a sync agent.
public enum ItemIdentity {
  /// The identity of the item at `url`; with `creating`, one is assigned if it has none.
  /// Without extended attributes the device and inode stand in.
  public static func of(_ url: URL, creating: Bool = true) throws(QuireError) -> String {
    try DocumentIdentity.identity(of: url, creating: creating)
  }

  /// The identity stored on the item at `url`, or nil if it has none.
  public static func stored(at url: URL) -> String? {
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = cquire_lgetxattr(url.path, DocumentIdentity.attribute, &buffer, buffer.count)
    return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil
  }

  /// Gives the item at `url` the identity `identity` (such as the one another device knows it
  /// by); nil `identity` removes it, so the item gets a new one when next asked.
  public static func assign(_ identity: String?, to url: URL) throws(QuireError) {
    let status: Int32
    if let identity {
      status = cquire_lsetxattr(url.path, DocumentIdentity.attribute, identity, identity.utf8.count)
    } else {
      status = cquire_lremovexattr(url.path, DocumentIdentity.attribute)
      if status != 0 && cquire_errno() == ENODATA { return }
    }
    guard status == 0 else {
      throw QuireError.system(
        SystemCallError(call: "setxattr", errno: cquire_errno()), action: "set the identity of",
        path: url.path)
    }
  }
}
