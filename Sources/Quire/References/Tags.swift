import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A document's tags, kept where other Linux tools look for them: the freedesktop
/// `user.xdg.tags` extended attribute, a comma-separated list. Quire's saves keep the attribute
/// (a safe-save copies it to the new file; a package keeps its folder), so tags survive edits.
public enum Tags {
  /// The attribute's name.
  public static let attributeName = "user.xdg.tags"

  /// The tags of the item at `url`, in stored order; none if it has no tags.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/notFound`` if the item is gone.
  public static func tags(of url: URL) throws(QuireError) -> [String] {
    let path = url.path
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = cquire_getxattr(path, attributeName, &buffer, buffer.count)
    if count < 0 {
      let errno = cquire_errno()
      if errno == ENODATA || errno == ENOTSUP { return [] }
      throw QuireError.system(
        SystemCallError(call: "getxattr", errno: errno), action: "read the tags of", path: path)
    }
    return String(decoding: buffer[0..<count], as: UTF8.self)
      .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
  }

  /// Replaces the tags of the item at `url`; an empty list removes the attribute. Duplicates are
  /// dropped, keeping the first.
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidName`` for an empty tag or one with a comma,
  ///   ``QuireError/Code-swift.struct/unsupported`` on a file system without extended attributes.
  public static func setTags(_ tags: [String], of url: URL) throws(QuireError) {
    let path = url.path
    var unique: [String] = []
    for tag in tags.map({ $0.trimmingCharacters(in: .whitespaces) }) where !unique.contains(tag) {
      guard !tag.isEmpty, !tag.contains(",") else {
        throw QuireError(
          .invalidName,
          "The tag “\(tag)” is empty or contains a comma, which the tag list cannot hold.",
          path: path)
      }
      unique.append(tag)
    }
    let value = unique.joined(separator: ",")
    let result =
      unique.isEmpty
      ? cquire_removexattr(path, attributeName)
      : cquire_setxattr(path, attributeName, value, value.utf8.count)
    guard result != 0 else { return }
    let errno = cquire_errno()
    if unique.isEmpty && errno == ENODATA { return }
    if errno == ENOTSUP {
      throw QuireError(
        .unsupported, "The file system of “\(path)” cannot store tags (no extended attributes).",
        path: path)
    }
    throw QuireError.system(
      SystemCallError(call: "setxattr", errno: errno), action: "tag", path: path)
  }

  /// Adds and removes tags and returns the new list.
  @discardableResult
  public static func update(_ url: URL, adding: [String] = [], removing: [String] = [])
    throws(QuireError)
    -> [String]
  {
    let updated = try tags(of: url).filter { !removing.contains($0) } + adding
    try setTags(updated, of: url)
    return try tags(of: url)
  }
}
