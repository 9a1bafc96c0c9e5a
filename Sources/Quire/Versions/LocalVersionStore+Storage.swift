import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How a ``LocalVersionStore`` lays out its folder: `IDENTITY/versions/NAME.json` per version
/// (names sort by save time), `IDENTITY/blobs/UUID` per member's bytes, `IDENTITY/lock`.
extension LocalVersionStore {
  // (The `isDirectory:` forms: the plain one looks at the disk to decide.)
  func itemFolder(_ identity: String) -> URL {
    directory.appendingPathComponent(identity, isDirectory: true)
  }

  func versionFile(_ name: String, of identity: String) -> URL {
    itemFolder(identity).appendingPathComponent("versions/\(name).json", isDirectory: false)
  }

  func blobFile(_ blob: String, of identity: String) -> URL {
    itemFolder(identity).appendingPathComponent("blobs/\(blob)", isDirectory: false)
  }

  /// The names of the document's kept versions, newest first.
  func versionNames(of identity: String) -> [String] {
    let folder = itemFolder(identity).appendingPathComponent("versions", isDirectory: true)
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted(by: >)
  }

  /// When the version named `name` was kept (its name starts with the time in milliseconds).
  static func keptDate(_ name: String) -> Date {
    Date(timeIntervalSince1970: Double(Int64(name.prefix(while: { $0 != "-" })) ?? 0) / 1000)
  }

  /// The document's kept versions as stored (a version kept as a change lists only that),
  /// newest first. A manifest that is there but does not decode (cut short by a power cut) is
  /// left out; a failure to read one is thrown.
  func manifests(of identity: String) throws -> [(name: String, manifest: LocalVersionManifest)] {
    try versionNames(of: identity).compactMap { name in
      let data = try Data(contentsOf: versionFile(name, of: identity))
      return (try? JSONDecoder().decode(LocalVersionManifest.self, from: data)).map { (name, $0) }
    }
  }

  /// The version named `name` as stored, or nil when its file is there but does not decode (cut
  /// short by a power cut); a failure to read it is thrown.
  func storedIfIntact(_ name: String, of identity: String) throws -> LocalVersionManifest? {
    let data = try Data(contentsOf: versionFile(name, of: identity))
    return try? JSONDecoder().decode(LocalVersionManifest.self, from: data)
  }

  /// The version named `name` as stored.
  func stored(_ name: String, of identity: String) throws -> LocalVersionManifest {
    let data = try Data(contentsOf: versionFile(name, of: identity))
    return try JSONDecoder().decode(LocalVersionManifest.self, from: data)
  }

  /// The version named `name` with every member, put together from the versions it is a change
  /// from.
  func manifest(_ name: String, of identity: String, item url: URL) throws
    -> LocalVersionManifest
  {
    var chain: [LocalVersionManifest] = []
    var next: String? = name
    let longest = versionNames(of: identity).count
    while let current = next {
      guard !current.contains("/"), chain.count <= longest,
        let data = try? Data(contentsOf: versionFile(current, of: identity))
      else {
        throw QuireError(
          .notFound,
          current == name
            ? "“\(name)” is not a kept version of “\(url.path)”: see its version list."
            : "The kept version “\(name)” of “\(url.path)” lacks the version it was kept after; remove it.",
          path: url.path)
      }
      guard let manifest = try? JSONDecoder().decode(LocalVersionManifest.self, from: data) else {
        throw QuireError(
          .corruptDocument,
          "The kept version “\(current)” of “\(url.path)” cannot be read (cut short by a power cut?); remove it.",
          path: url.path)
      }
      chain.append(manifest)
      next = manifest.base
    }
    let named = chain[0]
    guard named.base != nil else { return named }
    var tree = LocalVersionTree(chain.removeLast())
    for change in chain.reversed() { tree.apply(change) }
    return LocalVersionManifest(
      saved: named.saved, device: named.device, isPackage: tree.isPackage, members: tree.ordered)
  }

  /// Writes the manifest under a name that sorts after every earlier one (`after`: the newest
  /// name so far): the time in milliseconds, then a random part. Returns the name.
  @discardableResult
  func write(_ manifest: LocalVersionManifest, of identity: String, after newest: String?) throws
    -> String
  {
    let previous = newest.flatMap { Int64($0.prefix(while: { $0 != "-" })) } ?? 0
    let millis = max(Int64((now().timeIntervalSince1970 * 1000).rounded(.down)), previous + 1)
    let name =
      String(format: "%015lld", millis) + "-"
      + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    try store(manifest, as: name, of: identity)
    return name
  }

  /// Writes (or replaces, in one rename) the version named `name`. No fsync: the save a version
  /// is kept for makes the user wait for its own durability, not for history's. A power cut
  /// before the kernel writes it back can lose the newest versions (never the document); the
  /// version list then leaves out what it cannot read. `durable`: fsynced, with its folder,
  /// before this returns (a fold that replaces an old version others are changes from).
  func store(
    _ manifest: LocalVersionManifest, as name: String, of identity: String, durable: Bool = false
  ) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let file = versionFile(name, of: identity).path
    let staging = file + ".writing-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    do {
      let fd = try Sys.open(staging, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
      defer { Sys.close(fd) }
      try Sys.write(fd, try encoder.encode(manifest))
      if durable { try Sys.fsync(fd) }
    }
    do {
      try Sys.rename(staging, file)
    } catch {
      try? Sys.unlink(staging)
      throw error
    }
    if durable {
      try Sys.fsyncDirectory(
        itemFolder(identity).appendingPathComponent("versions", isDirectory: true).path)
    }
  }

  /// The document's members as they are on disk, in path order ("" for a flat file).
  func walk(_ url: URL) throws -> [(path: String, info: stat)] {
    guard let root = try Sys.status(url.path) else {
      throw QuireError(.notFound, "There is no document at “\(url.path)”.", path: url.path)
    }
    guard root.st_mode & S_IFMT == S_IFDIR else { return [("", root)] }
    return try walk(url, under: "")
  }

  /// The members inside the package's folder `relative` ("" for the whole package), in path
  /// order.
  func walk(_ url: URL, under relative: String) throws -> [(path: String, info: stat)] {
    var members: [(path: String, info: stat)] = []
    func visit(_ relative: String) throws {
      let folder = relative.isEmpty ? url.path : url.path + "/" + relative
      for entry in try Sys.listDirectory(at: folder).map(\.name).sorted()
      where !(relative.isEmpty && SaveJournal.isBookkeeping(entry)) {
        let path = relative.isEmpty ? entry : relative + "/" + entry
        guard let info = try Sys.status(url.path + "/" + path) else { continue }
        members.append((path, info))
        if info.st_mode & S_IFMT == S_IFDIR { try visit(path) }
      }
    }
    try visit(relative)
    return members
  }

  /// The document's state as a version: each changed file's bytes copied into a new blob, each
  /// unchanged one (same stat as in `previous`) naming the blob it already has.
  func snapshot(_ url: URL, identity: String, reusing previous: LocalVersionManifest?) throws
    -> LocalVersionManifest
  {
    let blobs = itemFolder(identity).appendingPathComponent("blobs", isDirectory: true)
    try FileManager.default.createDirectory(
      at: itemFolder(identity).appendingPathComponent("versions", isDirectory: true),
      withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
    let earlier = Dictionary(
      (previous?.members ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    let disk = try walk(url)
    let isPackage = !(disk.count == 1 && disk[0].path.isEmpty)
    var members: [LocalVersionManifest.Member] = []
    for (path, info) in disk {
      if let member = try member(path, info, of: url, identity: identity, reusing: earlier[path]) {
        members.append(member)
      }
    }
    let saved = Self.contentsModified(disk) ?? now()
    return LocalVersionManifest(
      saved: saved, device: deviceName, isPackage: isPackage, members: members)
  }

  /// The member at `path` of the document at `url` as a version keeps it, `info` its stat: a
  /// file's bytes copied into a new blob, unless `old` (the member in the version before) has
  /// the same stat or the same bytes. Nil for what is not document contents (a socket).
  func member(
    _ path: String, _ info: stat, of url: URL, identity: String,
    reusing old: LocalVersionManifest.Member?
  ) throws -> LocalVersionManifest.Member? {
    let file = path.isEmpty ? url.path : url.path + "/" + path
    var member = LocalVersionManifest.Member(
      path: path, kind: .file, blob: nil, target: nil, size: Int64(info.st_size),
      mode: UInt32(info.st_mode & 0o7777),
      modifiedNanos: LocalVersionManifest.Member.nanos(info.st_mtim),
      inode: UInt64(info.st_ino), changedNanos: LocalVersionManifest.Member.nanos(info.st_ctim))
    switch info.st_mode & S_IFMT {
    case S_IFDIR: member.kind = .directory
    case S_IFLNK:
      member.kind = .link
      member.target = try Sys.readlink(file)
    case S_IFREG:
      if let old, old.kind == .file,
        old.isUnchanged(info) || sameBytes(file, as: old, of: identity)
      {
        member.blob = old.blob  // (a save that rewrote the same bytes keeps no new copy)
      } else {
        member.blob = try copyIntoBlob(
          file, in: itemFolder(identity).appendingPathComponent("blobs", isDirectory: true),
          member: &member)
      }
    default: return nil  // sockets, devices: not document contents
    }
    return member
  }

  /// Whether the file holds exactly the bytes of `member`'s blob: read only when the sizes
  /// match, so it costs a read of a member a save rewrote unchanged.
  func sameBytes(_ path: String, as member: LocalVersionManifest.Member, of identity: String)
    -> Bool
  {
    guard let blob = member.blob, let info = try? Sys.status(path, followLinks: false),
      Int64(info.st_size) == member.size,
      let disk = FileHandle(forReadingAtPath: path),
      let kept = FileHandle(forReadingAtPath: blobFile(blob, of: identity).path)
    else { return false }
    defer {
      try? disk.close()
      try? kept.close()
    }
    do {
      while true {
        // (nil at the end of the file, on Linux)
        let left = try disk.read(upToCount: 1 << 20) ?? Data()
        let right = try kept.read(upToCount: 1 << 20) ?? Data()
        if left != right { return false }
        if left.isEmpty { return true }
      }
    } catch {
      return false
    }
  }

  /// Copies the file into a new blob (in the kernel where it can) and records the stat the
  /// bytes were copied under.
  private func copyIntoBlob(
    _ path: String, in blobs: URL, member: inout LocalVersionManifest.Member
  ) throws -> String {
    // Random enough to never meet another blob's name, from one getrandom (a UUID here reads
    // /dev/urandom through three calls).
    let name = (0..<2).map { _ in
      String(UInt64.random(in: 0...UInt64.max), radix: 16).leftPadded(to: 16)
    }.joined().uppercased()
    let source = try Sys.open(path, O_RDONLY | O_CLOEXEC)
    defer { Sys.close(source) }
    let info = try Sys.status(of: source)
    let target = try Sys.open(
      blobs.appendingPathComponent(name, isDirectory: false).path,
      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
      mode: 0o600)
    defer { Sys.close(target) }
    try Sys.copy(from: source, to: target, count: Int(info.st_size))
    member.size = Int64(info.st_size)
    member.modifiedNanos = LocalVersionManifest.Member.nanos(info.st_mtim)
    member.changedNanos = LocalVersionManifest.Member.nanos(info.st_ctim)
    member.inode = UInt64(info.st_ino)
    return name
  }

  /// Writes the version's members at `url` (which must not exist).
  func materialize(
    _ manifest: LocalVersionManifest, of identity: String, at url: URL, keepingTimes: Bool
  ) throws {
    if manifest.isPackage { try Sys.mkdir(url.path, mode: 0o755) }
    for member in manifest.members {
      let path = member.path.isEmpty ? url.path : url.path + "/" + member.path
      guard member.path.isEmpty || Self.isInside(member.path) else {
        throw QuireError(
          .corruptDocument, "A kept version of “\(url.lastPathComponent)” names “\(member.path)”.",
          path: url.path)
      }
      switch member.kind {
      case .directory: try Sys.mkdir(path, mode: 0o755)
      case .link: try Sys.symlink(member.target ?? "", at: path)
      case .file:
        let source = try Sys.open(
          blobFile(member.blob ?? "", of: identity).path, O_RDONLY | O_CLOEXEC)
        defer { Sys.close(source) }
        let target = try Sys.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
        defer { Sys.close(target) }
        try Sys.copy(from: source, to: target, count: Int(member.size))
      }
      if member.kind != .link { try Sys.chmod(path, mode_t(member.mode)) }
    }
    guard keepingTimes else { return }
    for member in manifest.members.reversed() where member.kind != .link {
      let path = member.path.isEmpty ? url.path : url.path + "/" + member.path
      try Sys.setModificationTime(
        path,
        timespec(
          tv_sec: Int(member.modifiedNanos / 1_000_000_000),
          tv_nsec: Int(member.modifiedNanos % 1_000_000_000)))
    }
  }

  /// When the contents were last modified: the newest of the files' modification times (a
  /// folder's own time changes with any change to its listing, so it is left out).
  static func contentsModified(_ members: [(path: String, info: stat)]) -> Date? {
    members.filter { $0.info.st_mode & S_IFMT != S_IFDIR }.map { date($0.info.st_mtim) }.max()
  }

  /// Whether a member path stays inside its package (a manifest is data read back from disk).
  static func isInside(_ path: String) -> Bool {
    !path.hasPrefix("/")
      && path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
        !$0.isEmpty && $0 != "." && $0 != ".."
      }
  }

  /// Removes the blobs no version names that are older than the grace period (a younger one
  /// may belong to a version being written by a program that does not hold the lock).
  func collectGarbage(of identity: String) throws {
    let named = try manifests(of: identity).reduce(into: Set<String>()) {
      $0.formUnion($1.manifest.blobs)
    }
    let blobs = itemFolder(identity).appendingPathComponent("blobs", isDirectory: true)
    let oldest = now().addingTimeInterval(-gracePeriod.timeInterval)
    for name in (try? Sys.listDirectory(at: blobs.path).map(\.name)) ?? []
    where !named.contains(name) {
      let path = blobs.appendingPathComponent(name, isDirectory: false).path
      guard let info = try Sys.status(path), Self.date(info.st_mtim) <= oldest else { continue }
      try Sys.unlink(path)
    }
    // Manifests a crash left half written (``store(_:as:of:)`` writes under this name first).
    let versions = itemFolder(identity).appendingPathComponent("versions", isDirectory: true)
    for name in (try? Sys.listDirectory(at: versions.path).map(\.name)) ?? []
    where name.contains(".json.writing-") {
      let path = versions.appendingPathComponent(name, isDirectory: false).path
      guard let info = try Sys.status(path), Self.date(info.st_mtim) <= oldest else { continue }
      try Sys.unlink(path)
    }
  }

  /// Runs `body` holding the document's lock, so two programs never thin or write its history
  /// at once.
  func withLock<T>(_ identity: String, _ body: () throws -> T) throws -> T {
    let lock = itemFolder(identity).appendingPathComponent("lock", isDirectory: false).path
    let fd: Int32
    do {
      fd = try Sys.open(lock, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
    } catch let error where error.errno == ENOENT {
      // The document's first version: its folder is made now.
      try FileManager.default.createDirectory(
        at: itemFolder(identity), withIntermediateDirectories: true)
      fd = try Sys.open(lock, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o600)
    }
    defer { Sys.close(fd) }
    try Sys.lock(fd, LOCK_EX)
    return try body()
  }

}

extension Duration {
  fileprivate var timeInterval: TimeInterval {
    let (whole, fraction) = components
    return TimeInterval(whole) + TimeInterval(fraction) / 1e18
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    String(repeating: "0", count: Swift.max(0, width - count)) + self
  }
}
