import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Members of a package that are in the cloud: a package can be here with only some of its
/// members' bytes (an album of thousands of images opens with its list of images, and each image
/// arrives when it is first shown). Each missing member is a placeholder beside where it would
/// be (`Album.album/.IMG_0001.jpg.icloud`); to any program that is not Quire the member is
/// simply absent, never a wrong or half-written file.
///
/// ``FileWrapper`` lists such a member under its real name; reading its contents is a
/// coordinated read of the member's URL, which asks the folder's ``FileProvider`` to download it.
extension CloudPlaceholder {
  /// The extended attribute a downloaded member carries: its modification time as downloaded,
  /// so a document that has the package open tells the download (the same contents arriving)
  /// from another program's change.
  static let downloadedAttribute = "user.quire.downloaded"

  /// The member's name for the placeholder named `name` inside a package, or nil if it is not
  /// one (from the name alone: a member's placeholder always holds the member's whole name).
  public static func memberName(forPlaceholder name: String) -> String? {
    guard isPlaceholderName(name), !SaveJournal.isBookkeeping(name) else { return nil }
    return String(name.dropFirst().dropLast(suffix.count))
  }

  /// Writes the placeholders of many members of one folder of a package as one file, linked
  /// under each placeholder's name (`placeholders` by member name): placing thousands of members
  /// in the cloud allocates one inode, not one each (on a busy ext4, an inode costs far more than
  /// a name). Each name reads as its own member's placeholder; downloading a member unlinks its
  /// name, as with a placeholder of its own.
  ///
  /// - Throws: ``QuireError`` if the folder cannot be written; the names made so far stay.
  public static func writeMembers(_ placeholders: [String: CloudPlaceholder], in folder: URL)
    throws(QuireError)
  {
    guard let any = placeholders.values.first else { return }
    var set = any
    set.members = Dictionary(
      uniqueKeysWithValues: placeholders.map {
        (url(for: folder.appendingPathComponent($0.key)).lastPathComponent, $0.value)
      })
    let source = folder.appendingPathComponent(".quire-placeholders-\(UUID().uuidString)")
    do {
      try JSONEncoder().encode(set).write(to: source)
      defer { try? Sys.unlink(source.path) }
      for name in set.members!.keys {
        try Sys.link(source.path, folder.appendingPathComponent(name).path)
      }
    } catch {
      throw QuireError(
        .ioError, "Could not write the placeholders in “\(folder.path)”: \(error).",
        path: folder.path, cause: error)
    }
  }

  /// Whether the member named `name` can be kept in the cloud: its placeholder's name fits.
  public static func canPlaceMember(named name: String) -> Bool {
    ("." + name + suffix).utf8.count <= 255
  }

  /// Writes the member at `memberURL` of the package at `packageURL`: `fill` writes the bytes
  /// into an open file, which then gets `mode` and `modified`, is made durable and replaces the
  /// member's placeholder, all under the package's exclusive lock — so no reader of the package
  /// ever sees the member half written, or neither the member nor its placeholder. A document
  /// that has the package open does not take it for a change (the contents were already its).
  ///
  /// - Returns: the member's `stat` once in place.
  /// - Throws: ``QuireError`` naming the member if it cannot be written (the placeholder stays).
  public static func downloadMember(
    at memberURL: URL, ofPackage packageURL: URL, mode: Int, modified: Date,
    fill: (Int32) throws -> Void
  ) throws -> stat {
    let package = packageURL.standardizedFileURL.path
    let member = memberURL.standardizedFileURL.path
    guard member.hasPrefix(package + "/") else {
      throw QuireError(
        .invalidName, "“\(member)” is not a member of the package “\(package)”.",
        path: member)
    }
    let lock: PackageLock
    do throws(SystemCallError) { lock = try PackageLock(path: package, exclusive: true) } catch {
      throw QuireError.system(error, action: "download into", path: package)
    }
    defer { lock.release() }
    // A save's stage name: if this process dies before the rename, the next reader of the
    // package removes it as an interrupted save's leftover.
    let stage = package.appendingPathComponent(
      SaveJournal.stagePrefix + "download-" + String(UInt64.random(in: 1...UInt64.max), radix: 36))
    do {
      let fd = try Sys.open(stage, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode_t(mode))
      do {
        try fill(fd)
        try Sys.chmod(fd, mode_t(mode & 0o7777))
        let time = modified.timespec
        var times = [time, time]
        guard futimens(fd, &times) == 0 else { throw Sys.failure("futimens") }
        let nanos = String(time.saturatingNanoseconds)
        _ = cquire_fsetxattr(fd, downloadedAttribute, nanos, nanos.utf8.count)
        try Sys.fsync(fd)
        Sys.close(fd)
      } catch {
        Sys.close(fd)
        throw error
      }
      try Sys.rename(stage, member)
      try? Sys.unlink(url(for: memberURL).path)
      try Sys.fsyncDirectory(member.deletingLastPathComponent)
      guard let info = try Sys.status(member, followLinks: false) else {
        throw SystemCallError(call: "stat", errno: ENOENT)
      }
      return info
    } catch let error as SystemCallError {
      try? Sys.unlink(stage)
      throw QuireError.system(error, action: "download", path: member)
    } catch {
      try? Sys.unlink(stage)
      throw error
    }
  }

  /// Whether the file at `path`, last modified at `modified` (nanoseconds since 1970), is a
  /// member as its download left it: one extended-attribute read.
  static func isUnchangedDownload(_ path: String, modified: Int64) -> Bool {
    var buffer = [UInt8](repeating: 0, count: 32)
    let count = cquire_lgetxattr(path, downloadedAttribute, &buffer, buffer.count)
    guard count > 0 else { return false }
    return Int64(String(decoding: buffer[..<count], as: UTF8.self)) == modified
  }
}
