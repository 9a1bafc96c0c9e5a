import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A document's stable identity: a UUID kept in its `user.quire.id` extended attribute, which a
/// safe-save copies to the new file, so it survives renames, moves and new inodes. On file
/// systems without extended attributes, the device and inode stand in.
enum DocumentIdentity {
  static let attribute = "user.quire.id"

  static func identity(of url: URL, creating: Bool) throws(QuireError) -> String {
    let path = url.path
    var buffer = [UInt8](repeating: 0, count: 64)
    let count = cquire_lgetxattr(path, attribute, &buffer, buffer.count)
    if count > 0 { return String(decoding: buffer[0..<count], as: UTF8.self) }
    var info = stat()
    guard lstat(path, &info) == 0 else {
      throw QuireError.system(
        SystemCallError(call: "stat", errno: cquire_errno()), action: "identify", path: path)
    }
    guard creating else { return "dev\(info.st_dev)-ino\(info.st_ino)" }
    let identity = UUID().uuidString.lowercased()
    if cquire_lsetxattr(path, attribute, identity, identity.utf8.count) == 0 { return identity }
    return "dev\(info.st_dev)-ino\(info.st_ino)"
  }
}
