/// Whether this account may change an item's contents: a document's revision, or what a folder
/// holds at any depth.
///
/// A read-only share is a mount in the remote tree: the shared folder (or document) is
/// ``readOnly``, and so is everything in it. The participant still places the mount itself
/// wherever they like in their drive; what they change inside it is kept as their own.
public enum Access: Hashable, Sendable {
  /// The account's own items, and shares it may change.
  case writable
  /// A share this account may only read.
  case readOnly
}
