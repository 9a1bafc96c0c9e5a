import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// How a ``LocalVersionStore`` lays out its folder: `IDENTITY/versions/NAME.json` per version
/// (names sort by save time), `IDENTITY/blobs/UUID` per member's bytes, `IDENTITY/lock`.
extension LocalVersionStore {
  func itemFolder(_ identity: String) -> URL { directory.appendingPathComponent(identity) }

  func versionFile(_ name: String, of identity: String) -> URL {
    itemFolder(identity).appendingPathComponent("versions/\(name).json")
  }

  func blobFile(_ blob: String, of identity: String) -> URL {
    itemFolder(identity).appendingPathComponent("blobs/\(blob)")
  }

  /// The names of the document's kept versions, newest first.
  func versionNames(of identity: String) -> [String] {
    let folder = itemFolder(identity).appendingPathComponent("versions")
    let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return files.filter { $0.hasSuffix(".json") }.map { String($0.dropLast(5)) }.sorted(by: >)
  }

  /// When the version named `name` was kept (its name starts with the time in milliseconds).
  static func keptDate(_ name: String) -> Date {
    Date(timeIntervalSince1970: Double(Int64(name.prefix(while: { $0 != "-" })) ?? 0) / 1000)
  }

  /// The document's kept versions, newest first (`limit`: only that many).
  func manifests(of identity: String, limit: Int = .max) throws
    -> [(name: String, manifest: LocalVersionManifest)]
  {
    let decoder = JSONDecoder()
    return try versionNames(of: identity).prefix(limit).map { name in
      let data = try Data(contentsOf: versionFile(name, of: identity))
      return (name, try decoder.decode(LocalVersionManifest.self, from: data))
    }
  }

  func manifest(_ name: String, of identity: String, item url: URL) throws
    -> LocalVersionManifest
  {
    guard !name.contains("/"),
      let data = try? Data(contentsOf: versionFile(name, of: identity))
    else {
      throw QuireError(
        .notFound, "“\(name)” is not a kept version of “\(url.path)”: see its version list.",
        path: url.path)
    }
    return try JSONDecoder().decode(LocalVersionManifest.self, from: data)
  }

  /// Writes the manifest under a name that sorts after every earlier one (`after`: the newest
  /// name so far): the time in milliseconds, then a random part.
  func write(_ manifest: LocalVersionManifest, of identity: String, after newest: String?) throws {
    let previous = newest.flatMap { Int64($0.prefix(while: { $0 != "-" })) } ?? 0
    let millis = max(Int64((now().timeIntervalSince1970 * 1000).rounded(.down)), previous + 1)
    let name =
      String(format: "%015lld", millis) + "-"
      + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    let file = versionFile(name, of: identity)
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    try encoder.encode(manifest).write(to: file, options: .atomic)
  }

  /// The document's members as they are on disk, in path order ("" for a flat file).
  func walk(_ url: URL) throws -> [(path: String, info: stat)] {
    guard let root = try Sys.status(url.path) else {
      throw QuireError(.notFound, "There is no document at “\(url.path)”.", path: url.path)
    }
    guard root.st_mode & S_IFMT == S_IFDIR else { return [("", root)] }
    var members: [(path: String, info: stat)] = []
    func visit(_ relative: String) throws {
      let folder = relative.isEmpty ? url.path : url.path + "/" + relative
      for entry in try Sys.listDirectory(at: folder).map(\.name).sorted() {
        let path = relative.isEmpty ? entry : relative + "/" + entry
        guard let info = try Sys.status(url.path + "/" + path) else { continue }
        members.append((path, info))
        if info.st_mode & S_IFMT == S_IFDIR { try visit(path) }
      }
    }
    try visit("")
    return members
  }

  /// The document's state as a version: each changed file's bytes copied into a new blob, each
  /// unchanged one (same stat as in `previous`) naming the blob it already has.
  func snapshot(_ url: URL, identity: String, reusing previous: LocalVersionManifest?) throws
    -> LocalVersionManifest
  {
    let blobs = itemFolder(identity).appendingPathComponent("blobs")
    try FileManager.default.createDirectory(
      at: itemFolder(identity).appendingPathComponent("versions"),
      withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
    let earlier = Dictionary(
      (previous?.members ?? []).map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    let disk = try walk(url)
    let isPackage = !(disk.count == 1 && disk[0].path.isEmpty)
    var members: [LocalVersionManifest.Member] = []
    for (path, info) in disk {
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
        if let old = earlier[path], old.kind == .file,
          old.isUnchanged(info) || sameBytes(file, as: old, of: identity)
        {
          member.blob = old.blob  // (a save that rewrote the same bytes keeps no new copy)
        } else {
          member.blob = try copyIntoBlob(file, in: blobs, member: &member)
        }
      default: continue  // sockets, devices: not document contents
      }
      members.append(member)
    }
    let saved = Self.contentsModified(disk) ?? now()
    return LocalVersionManifest(
      saved: saved, device: deviceName, isPackage: isPackage, members: members)
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
    let name = UUID().uuidString
    let source = try Sys.open(path, O_RDONLY | O_CLOEXEC)
    defer { Sys.close(source) }
    let info = try Sys.status(of: source)
    let target = try Sys.open(
      blobs.appendingPathComponent(name).path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
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

  /// Removes the versions the thinning policy no longer keeps (never the newest), judging
  /// their ages by the times in their names, so no manifest is read unless one goes.
  func thin(_ identity: String) throws {
    let kept = versionNames(of: identity).dropFirst()
    let remove = thinning.versionsToRemove(kept.map { ($0, Self.keptDate($0)) }, now: now())
    guard !remove.isEmpty else { return }
    for name in remove { try FileManager.default.removeItem(at: versionFile(name, of: identity)) }
    try collectGarbage(of: identity)
  }

  /// Removes the blobs no version names that are older than the grace period (a younger one
  /// may belong to a version being written by a program that does not hold the lock).
  func collectGarbage(of identity: String) throws {
    let named = try manifests(of: identity).reduce(into: Set<String>()) {
      $0.formUnion($1.manifest.blobs)
    }
    let blobs = itemFolder(identity).appendingPathComponent("blobs")
    let oldest = now().addingTimeInterval(-gracePeriod.timeInterval)
    for name in (try? Sys.listDirectory(at: blobs.path).map(\.name)) ?? []
    where !named.contains(name) {
      let path = blobs.appendingPathComponent(name).path
      guard let info = try Sys.status(path), Self.date(info.st_mtim) <= oldest else { continue }
      try Sys.unlink(path)
    }
  }

  /// Runs `body` holding the document's lock, so two programs never thin or write its history
  /// at once.
  func withLock<T>(_ identity: String, _ body: () throws -> T) throws -> T {
    try FileManager.default.createDirectory(
      at: itemFolder(identity), withIntermediateDirectories: true)
    let fd = try Sys.open(
      itemFolder(identity).appendingPathComponent("lock").path, O_RDWR | O_CREAT | O_CLOEXEC,
      mode: 0o600)
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
