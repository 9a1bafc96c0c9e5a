import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Reads a file, link or package from disk into wrappers: names and attributes only, unless
/// asked to read contents immediately.
struct PackageReader {
  var options: FileWrapper.ReadingOptions
  /// Set when the caller already holds the package lock and has made sure no journal exists:
  /// the reader then takes no lock and skips leftover staging and trash items.
  var callerHoldsLock = false

  /// Reads `path` into a wrapper state. A package is read under a shared lock (so no Quire save
  /// is half-applied while it is walked) and an interrupted save is recovered first.
  func read(path: String) throws(QuireError) -> FileWrapper.State {
    let info: stat
    do throws(SystemCallError) {
      guard let found = try Sys.status(path, followLinks: true) else {
        throw SystemCallError(call: "stat", errno: ENOENT)
      }
      info = found
    } catch {
      throw QuireError.system(error, action: "read", path: path)
    }
    let parent = DiskLocation(absolutePath: path.deletingLastPathComponent)
    let name = path.lastPathComponent
    var state: FileWrapper.State
    do throws(SystemCallError) {
      if info.isDirectory {
        state = try readPackage(path: path, parent: parent, name: name)
      } else if let symlink = try Sys.status(path), symlink.isSymbolicLink {
        state = FileWrapper.State(content: .symbolicLink(try Sys.readlink(path)))
        state.attributes = FileAttributes(symlink)
      } else {
        state = FileWrapper.State(content: .regularFile(try contentsIfImmediate(path)))
        state.attributes = FileAttributes(info)
      }
    } catch {
      throw QuireError.system(error, action: "read", path: path)
    }
    state.origin = FileWrapper.Origin(directory: parent, name: name)
    state.filename = name
    state.preferredFilename = name
    state.mapsContents = !options.contains(.withoutMapping)
    return state
  }

  private func readPackage(path: String, parent: DiskLocation, name: String) throws(SystemCallError)
    -> FileWrapper.State
  {
    let location = DiskLocation(parent: parent, name: name)
    var directory = FileWrapper.Directory(location: location)
    if callerHoldsLock {
      let fd = try Sys.open(path, O_RDONLY | O_DIRECTORY)
      defer { Sys.close(fd) }
      directory.children = try readChildren(of: fd, location: location, isRoot: true) ?? [:]
      var state = FileWrapper.State(content: .directory(directory))
      state.attributes = FileAttributes(try Sys.status(of: fd))
      return state
    }
    let lock = try PackageLock(path: path, exclusive: false)
    defer { lock.release() }
    if let children = try readChildren(of: lock.fd, location: location, isRoot: true) {
      directory.children = children
    } else {
      // An interrupted save: finish or undo it under the exclusive lock, then read again.
      try lock.upgrade()
      _ = try SaveRecovery.recover(lockedPackage: lock.fd, path: path)
      try lock.downgrade()
      directory.children = try readChildren(of: lock.fd, location: location, isRoot: true) ?? [:]
    }
    var state = FileWrapper.State(content: .directory(directory))
    state.attributes = FileAttributes(try Sys.status(of: lock.fd))
    return state
  }

  /// What the reader keeps of one entry's `lstat`: all a wrapper needs, in 32 bytes (the list
  /// of a 100 000-member package is held while its wrappers are made).
  private struct Entry {
    var name: String
    var modified: Date
    /// The size in the low 48 bits (256 TiB), the mode's 16 bits (type and permissions) above.
    private var sizeAndMode: UInt64

    init(name: String, size: Int64, modified: Date, mode: mode_t) {
      self.name = name
      self.modified = modified
      sizeAndMode = UInt64(min(max(size, 0), 0xFFFF_FFFF_FFFF)) | UInt64(mode & 0xFFFF) << 48
    }

    var size: Int64 { Int64(sizeAndMode & 0xFFFF_FFFF_FFFF) }
    var mode: mode_t { mode_t(sizeAndMode >> 48) }
  }

  /// Reads the entries of the folder open as `fd`; at the top of a package, returns nil as soon as
  /// it meets save bookkeeping, which must be recovered first.
  ///
  /// The listing and the `lstat`s run first into compact records, and the wrappers are built
  /// afterwards: interleaving the two thrashes the caches the kernel's lookups depend on.
  private func readChildren(of fd: Int32, location: DiskLocation, isRoot: Bool)
    throws(SystemCallError) -> [String: FileWrapper]?
  {
    var entries: [Entry] = []
    var interrupted = false
    try Sys.forEachEntry(fd) { (cName, info) throws(SystemCallError) in
      if interrupted { return }
      let name = String(cString: cName)
      if isRoot && SaveJournal.isBookkeeping(name) {
        if !callerHoldsLock { interrupted = true }
        return
      }
      entries.append(
        Entry(
          name: name, size: Int64(info.st_size), modified: Date(info.st_mtim), mode: info.st_mode))
    }
    if interrupted { return nil }
    var children: [String: FileWrapper] = [:]
    children.reserveCapacity(entries.count)
    let maps = !options.contains(.withoutMapping)
    let cloud = Self.cloudMembers(entries)
    for var entry in entries {
      var isInCloud = false
      if let member = cloud[entry.name] {
        // A member in the cloud: listed under its own name, its bytes downloaded when read.
        guard let member else { continue }
        entry.name = member
        isInCloud = true
      }
      let name = entry.name
      let content: FileWrapper.Content
      switch entry.mode & S_IFMT {
      case S_IFREG where isInCloud:
        content = .regularFile(nil)
      case S_IFREG where options.contains(.immediate):
        content = .regularFile(try contentsIfImmediate(location.path(of: name)))
      case S_IFREG:
        // A lazy open makes no path per member: building it walks the folder's parents.
        content = .regularFile(nil)
      case S_IFDIR:
        let childFd = try Sys.open(name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, relativeTo: fd)
        defer { Sys.close(childFd) }
        let childLocation = DiskLocation(parent: location, name: name)
        var directory = FileWrapper.Directory(location: childLocation)
        directory.children =
          try readChildren(of: childFd, location: childLocation, isRoot: false) ?? [:]
        content = .directory(directory)
      case S_IFLNK:
        content = .symbolicLink(try Sys.readlink(name, relativeTo: fd))
      default:
        continue  // sockets, FIFOs and devices are not document content
      }
      var state = FileWrapper.State(content: content)
      state.preferredFilename = name
      state.filename = name
      state.attributes = FileAttributes(
        posixPermissions: UInt16(entry.mode & 0o7777), modificationDate: entry.modified,
        size: isInCloud ? nil : entry.size)
      state.origin = FileWrapper.Origin(directory: location, name: name)
      state.keyInParent = name
      state.mapsContents = maps
      state.isInCloud = isInCloud
      children[name] = FileWrapper(state: state)
    }
    return children
  }

  /// The members in the cloud among a folder's `entries`: placeholder names
  /// (`.IMG_1.jpg.icloud`) mapped to the member's name — or to nil when the member itself is
  /// there too (it was downloaded and its placeholder is left over): that entry is skipped.
  private static func cloudMembers(_ entries: [Entry]) -> [String: String?] {
    var cloud: [String: String?] = [:]
    for entry in entries where entry.mode & S_IFMT == S_IFREG {
      guard let member = CloudPlaceholder.memberName(forPlaceholder: entry.name) else { continue }
      cloud[entry.name] = .some(member)
    }
    guard !cloud.isEmpty else { return [:] }
    let names = Set(entries.map(\.name))
    for (placeholder, member) in cloud where names.contains(member!) {
      cloud[placeholder] = .some(nil)
    }
    return cloud
  }

  private func contentsIfImmediate(_ path: String) throws(SystemCallError) -> Data? {
    guard options.contains(.immediate) else { return nil }
    return try FileWrapper.load(path: path, mapping: !options.contains(.withoutMapping))
  }
}
