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

  /// The identity stored on the item at `url`, or nil if it has none (or it cannot be read).
  public static func stored(at url: URL) -> String? {
    guard let bytes = try? Sys.attribute(url.path, DocumentIdentity.attribute, limit: 64),
      !bytes.isEmpty
    else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Gives the item at `url` the identity `identity` (such as the one another device knows it
  /// by); nil `identity` removes it, so the item gets a new one when next asked.
  public static func assign(_ identity: String?, to url: URL) throws(QuireError) {
    do {
      if let identity {
        try Sys.setAttribute(url.path, DocumentIdentity.attribute, identity)
      } else {
        try Sys.removeAttribute(url.path, DocumentIdentity.attribute)
      }
    } catch {
      throw QuireError.system(error, action: "set the identity of", path: url.path)
    }
  }
}
