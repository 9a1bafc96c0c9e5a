import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Writes a downloaded revision into the folder inside a coordinated write, so an open document
/// reloads and no reader sees a mix of two revisions:
/// - a flat file is written beside its target, fsynced, and renamed over it;
/// - a package that is already there gets one incremental Quire save of the changed members;
/// - a new package is built under a hidden name beside its target and renamed into place.
struct DownloadWriter {
  let folder: URL
  let identity: String

  /// Moves the item at `old` to `new` (both relative), making the folders it needs.
  func move(from old: String, to new: String) throws {
    let source = folder.appendingPathComponent(old)
    let target = folder.appendingPathComponent(new)
    do {
      guard try !Sys.exists(target.path) else { return }
      try AgentFolders.make(target.deletingLastPathComponent().path)
    } catch {
      throw Self.failed("move", target, error)
    }
    try FileCoordinator().coordinate(
      writingItemAt: source, options: .forMoving, writingItemAt: target, options: .forReplacing
    ) { from, to in
      do { try Sys.move(from.path, to: to.path) } catch { throw Self.failed("move", to, error) }
    }
  }

  /// Writes `manifest`'s members at `relative`; returns where it went and the local stat of each
  /// member written. If another item holds that name, a new one of this device's that is not
  /// synced yet (`isUnsynced` of its identity) moves aside to "Name 2", as the server will name
  /// it when it commits; a synced one keeps the name, and this item goes to a free name.
  ///
  /// `chunk` gives each chunk's bytes (fetched, or copied from the synced copy on disk); a flat
  /// file is written a chunk at a time, so a member of any size costs a few chunks of memory.
  ///
  /// With `replacing`, the item was on disk at `relative` when last synced. If nothing is there
  /// now, it was moved or deleted since the last scan: writing would make a second file with
  /// its identity (the moved one, and a new one at the old name), so the download stops with
  /// `changedWhileSyncing`, and the next scan finds where it went first.
  func write(
    _ manifest: RevisionManifest, to relative: String,
    chunk: @escaping (ContentHash) throws -> [UInt8], incremental: Bool,
    expecting expected: [String: LocalItem.Member] = [:], replacing: Bool = false,
    isUnsynced: (String) -> Bool = { _ in false }, inCloud: Set<String> = [],
    wholeFile: Int32? = nil, latePutBack: LatePutBack = LatePutBack()
  ) throws -> (path: String, members: [String: LocalItem.Member]) {
    // Whatever the server sent is checked before anything is made: a name outside the folder,
    // an empty or repeated member path, or sizes that do not add up is refused, and the disk is
    // left as it was.
    try SyncPath.check(relative, what: "item path")
    try manifest.change.validateShape(kind: manifest.kind)
    var relative = relative
    var target = folder.appendingPathComponent(relative)
    let gone = { (url: URL) -> SyncError in
      SyncError(
        .changedWhileSyncing,
        "“\(url.path)” was moved or deleted since it was last synced; where it went is uploaded first, then the download follows."
      )
    }
    let exists = { (url: URL) throws(SyncError) -> Bool in
      do { return try Sys.exists(url.path) } catch { throw Self.failed("look at", url, error) }
    }
    if replacing, try !exists(target) { throw gone(target) }
    do { try AgentFolders.make(target.deletingLastPathComponent().path) } catch {
      throw Self.failed("make the folder of", target, error)
    }
    let occupant = ItemIdentity.stored(at: target)
    if occupant != identity, !incremental, try exists(target), occupant.map(isUnsynced) ?? false {
      let aside = freeName(beside: target)
      let coordinator = FileCoordinator()
      try coordinator.coordinate(
        writingItemAt: target, options: .forMoving, writingItemAt: aside, options: .forReplacing
      ) { from, to in
        do { try Sys.move(from.path, to: to.path) } catch {
          throw Self.failed("move aside", from, error)
        }
        coordinator.item(at: from, didMoveTo: to)
      }
    } else if let occupant, occupant != identity {
      target = freeName(beside: target)
      relative = String(target.path.dropFirst(folder.path.count + 1))
    }
    let targetExists = try exists(target)
    // A chunk's bytes must be the size its reference says, or the member would be written as
    // something nobody saved, and then taken for a local change and uploaded.
    let bytes = { (piece: ChunkReference) throws -> [UInt8] in
      let bytes = try chunk(piece.hash)
      guard bytes.count == piece.size else {
        throw SyncError(
          .badChunk,
          "A chunk of “\(target.path)” has \(bytes.count) bytes where its manifest says \(piece.size); the download is retried."
        )
      }
      return bytes
    }
    let contents = { (member: ManifestMember) throws -> Data in
      var data = Data(capacity: member.size)
      for piece in member.chunks { data.append(contentsOf: try bytes(piece)) }
      return data
    }
    let stream = { (member: ManifestMember, fd: Int32) throws in
      for piece in member.chunks {
        let bytes = try bytes(piece)
        do { try bytes.withUnsafeBytes { try Sys.write(fd, $0) } } catch {
          throw SyncError(
            .unavailable, "Could not write “\(target.path)”: \(error). Check the free space.",
            cause: error)
        }
      }
    }
    var written: [String: LocalItem.Member] = [:]
    if manifest.kind == .file {
      guard let member = manifest.change.upserted.first else { return (relative, [:]) }
      try FileCoordinator().coordinate(writingItemAt: target, options: .forReplacing) { url in
        if replacing, try !exists(url) { throw gone(url) }
        let replaced = try ReplacedFiles(checking: [""], at: url, expected: expected)
        // The file's stat, read from the open file before it takes the name: once it has the
        // name, a program may rename it at once (a read-only share's owner's name then comes
        // back), and a look-up by name found nothing and left the download unrecorded, so the
        // next push took the downloaded bytes for the user's edit and kept them aside as
        // "(my changes)". Inside the write: once it ends, an open document reloads and may
        // save at once, and that save must not be taken for what was downloaded.
        let info = try writeFile(member, at: url, adopting: wholeFile) { try stream(member, $0) }
        written[""] = try Self.checked(info, at: url, written: member)
        try replaced.restoreOverwritten(
          waiting: latePutBack.waiting, restored: latePutBack.restored)
      }
    } else if incremental && targetExists {
      try FileCoordinator().coordinate(writingItemAt: target) { url in
        let replaced = try ReplacedFiles(
          checking: manifest.change.upserted.map(\.path) + manifest.change.removed, at: url,
          expected: expected)
        let package = try FileWrapper(url: url)
        for path in manifest.change.removed { remove(path, in: package) }
        for member in manifest.change.upserted {
          try place(member, contents: contents(member), in: package)
        }
        try package.write(to: url, originalContentsURL: url)
        for member in manifest.change.upserted {
          written[member.path] = try writtenMember(
            url.appendingPathComponent(member.path), written: member)
        }
        try replaced.restoreOverwritten(
          waiting: latePutBack.waiting, restored: latePutBack.restored)
      }
    } else {
      let staging = target.deletingLastPathComponent().appendingPathComponent(
        ".quire-sync-\(UUID().uuidString)")
      defer { try? Sys.removeTree(staging.path) }
      do { try Sys.mkdir(staging.path) } catch { throw Self.failed("write", target, error) }
      // Kept in the cloud: a placeholder for each member, with its mode and time; those of one
      // folder share one file (an album's thousands of images are one inode).
      var placeholders: [String: [String: CloudPlaceholder]] = [:]
      for member in manifest.change.upserted {
        let file = staging.appendingPathComponent(member.path)
        try SyncPath.check(member.path, what: "member path")
        do { try Sys.makeFolders(file.deletingLastPathComponent().path) } catch {
          throw Self.failed("write", target, error)
        }
        if inCloud.contains(member.path) {
          placeholders[file.deletingLastPathComponent().path, default: [:]][
            file.lastPathComponent] = CloudPlaceholder(
              name: file.lastPathComponent, isPackage: false, size: Int64(member.size),
              identity: identity, revision: manifest.revision,
              modified: Date(timeIntervalSince1970: member.safeModified),
              mode: Int(member.permissions))
          continue
        }
        try writeFile(member, at: file, atomically: false, durable: false) {
          try stream(member, $0)
        }
      }
      for (folder, members) in placeholders {
        try CloudPlaceholder.writeMembers(members, in: URL(fileURLWithPath: folder))
      }
      // One syncfs for every file of the new package, not an fsync each (an album on demand is
      // thousands of member placeholders), before its name appears.
      try Self.sync(staging.path) { try Sys.syncFileSystem($0) }
      try ItemIdentity.assign(identity, to: staging)
      try FileCoordinator().coordinate(writingItemAt: target, options: .forReplacing) { url in
        if try exists(url) {
          // Swapped, then checked: the package this one replaces is no longer reachable by its
          // name, and what it holds is compared with what the agent last saw. A member changed
          // or added by another program puts it back, unremoved, and the agent uploads it
          // first; only a package as last synced goes (with the staging folder).
          do { try Sys.exchange(staging.path, url.path) } catch {
            throw SyncError(
              .unavailable, "Could not place the downloaded “\(url.path)”: \(error).", cause: error)
          }
          if let changed = Self.changedMember(of: staging.path, expected: expected) {
            if (try? Sys.exchange(staging.path, url.path)) == nil {
              // Not put back in place: kept beside it, under a free name, never removed.
              try? Sys.renameNoReplace(staging.path, freeName(beside: url).path)
            }
            throw SyncError(
              .changedWhileSyncing,
              "“\(url.appendingPathComponent(changed).path)” changed while a newer version was downloaded; it is uploaded first and merged."
            )
          }
        } else {
          if replacing { throw gone(url) }
          do { try Sys.rename(staging.path, url.path) } catch {
            throw Self.failed("place the downloaded", url, error)
          }
        }
        for member in manifest.change.upserted {
          written[member.path] =
            inCloud.contains(member.path)
            ? .inCloud : try writtenMember(url.appendingPathComponent(member.path), written: member)
        }
      }
    }
    return (relative, written)
  }

  /// The first member of the package at `path` that is not as `expected` says (changed, or
  /// there with no record); nil if it is as last synced. With no record at all, every member is
  /// unknown and the package is kept.
  static func changedMember(of path: String, expected: [String: LocalItem.Member]) -> String? {
    var found: [String: LocalItem.Member] = [:]
    LocalScanner.packageMembers(path, relative: "", into: &found)
    for (member, local) in found.sorted(by: { $0.key < $1.key }) {
      guard let known = expected[member] else { return member }  // added here
      if local != .inCloud && known != .inCloud && local != known { return member }
    }
    return nil
  }

  /// Writes one member's file: `fill` writes its bytes into the open file, then its mode and
  /// time are set and it is fsynced unless not `durable` (and, `atomically`, renamed over
  /// `url`). A file written not `durable` must be made durable by its caller (a batch's one
  /// `syncfs`) before anything names it as synced.
  ///
  /// `adopting`, an unnamed file that already holds the bytes (a spool laid out as the file),
  /// is given the temporary name instead, and `fill` is not called; where it cannot be (no
  /// `O_TMPFILE`, another file system), `fill` writes a new file as usual. The caller still
  /// closes it.
  /// Returns the file's stat, read from it before it is renamed.
  @discardableResult
  func writeFile(
    _ member: ManifestMember, at url: URL, atomically: Bool = true, durable: Bool = true,
    adopting whole: Int32? = nil, fill: (Int32) throws -> Void
  ) throws -> stat {
    let temporary =
      atomically
      ? url.deletingLastPathComponent().appendingPathComponent(".quire-sync-\(UUID().uuidString)")
      : url
    let fd: Int32
    var adopted = false
    if let whole, atomically, (try? Sys.link(openFile: whole, to: temporary.path)) != nil {
      fd = whole
      adopted = true
    } else {
      do {
        fd = try Sys.open(
          temporary.path, O_WRONLY | O_CREAT | O_TRUNC, mode: mode_t(member.permissions))
      } catch {
        throw Self.failed("write", url, error)
      }
    }
    var failure: (any Error)?
    var info = stat()
    do {
      if !adopted { try fill(fd) }
      // Permission bits only, and a time that converts without trapping, whatever a peer sent.
      try Sys.chmod(fd, mode_t(member.permissions))
      try Sys.setModificationTime(
        of: fd, Date(timeIntervalSince1970: member.safeModified).timespec)
      if durable { try Sys.fsync(fd) }
      info = try Sys.status(of: fd)
    } catch let error as SystemCallError {
      failure = Self.failed("write", url, error)
    } catch {
      failure = error
    }
    if !adopted { Sys.close(fd) }
    if let failure {
      try? Sys.unlink(temporary.path)
      throw failure
    }
    guard atomically else { return info }
    do {
      if member.path.isEmpty { try ItemIdentity.assign(identity, to: temporary) }
      try Sys.rename(temporary.path, url.path)
    } catch {
      try? Sys.unlink(temporary.path)
      throw Self.failed("replace", url, error)
    }
    return info
  }

  /// The error of a write to `url` that failed with `error`: `unavailable`, with the system's
  /// reason (a full disk says so), and the cause kept.
  static func failed(_ action: String, _ url: URL, _ error: any Error) -> SyncError {
    if let error = error as? SyncError { return error }
    let reason = (error as? SystemCallError).map { String(cString: strerror($0.errno)) }
    return SyncError(
      .unavailable,
      "Could not \(action) “\(url.path)”\(reason.map { ": " + $0 } ?? ""); the download is retried.",
      cause: error)
  }

  private func place(_ member: ManifestMember, contents: Data, in package: FileWrapper) throws {
    try SyncPath.check(member.path, what: "member path")
    let names = member.path.split(separator: "/").map(String.init)
    var folder = package
    for name in names.dropLast() {
      if let child = folder.fileWrappers?[name], child.isDirectory {
        folder = child
      } else {
        if let child = folder.fileWrappers?[name] { folder.removeFileWrapper(child) }
        let child = FileWrapper(directoryWithFileWrappers: [:])
        child.preferredFilename = name
        _ = try folder.addFileWrapper(child)
        folder = child
      }
    }
    if let old = folder.fileWrappers?[names.last!] { folder.removeFileWrapper(old) }
    let file = FileWrapper(regularFileWithContents: contents)
    file.preferredFilename = names.last!
    file.fileAttributes = FileAttributes(
      posixPermissions: member.permissions,
      modificationDate: Date(timeIntervalSince1970: member.safeModified))
    _ = try folder.addFileWrapper(file)
  }

  private func remove(_ path: String, in package: FileWrapper) {
    var folder = package
    let names = path.split(separator: "/").map(String.init)
    for name in names.dropLast() {
      guard let child = folder.fileWrappers?[name], child.isDirectory else { return }
      folder = child
    }
    if let child = folder.fileWrappers?[names.last!] { folder.removeFileWrapper(child) }
  }

  /// Opens the folder at `path` and runs `call` on it (an fsync of its names, or a syncfs of
  /// its file system); `unavailable` if either fails.
  static func sync(_ path: String, _ call: (Int32) throws -> Void) throws {
    let fd: Int32
    do { fd = try Sys.open(path, O_RDONLY | O_DIRECTORY) } catch {
      throw SyncError(
        .unavailable, "Could not open “\(path)” to make the download durable.", cause: error)
    }
    defer { Sys.close(fd) }
    do { try call(fd) } catch {
      throw SyncError(
        .unavailable, "Could not make the download in “\(path)” durable: \(error).", cause: error)
    }
  }

  /// The local stat of `member`, just written at `url`, checked to be the download's own (its
  /// size and time): a program that wrote the file since, without coordination, would otherwise
  /// have its write recorded as the download and never uploaded. Then the download is not
  /// recorded: the write is uploaded on the revision it was made on, and the server merges.
  ///
  /// The time is the member's, as the file system keeps it: to the nanosecond, or cut down to
  /// its coarser step (a second on ext3, two on FAT, 10 ms on exFAT), never later; a write
  /// since has the time of now.
  private func writtenMember(_ url: URL, written member: ManifestMember) throws -> LocalItem.Member
  {
    // A stat that fails counts as not found: the download is not recorded, and is retried.
    try Self.checked(try? Sys.status(url.path), at: url, written: member)
  }

  /// `info`, the stat of `member` as written at `url` (nil: not found), checked as
  /// ``writtenMember(_:written:)`` says.
  static func checked(_ info: stat?, at url: URL, written member: ManifestMember) throws
    -> LocalItem.Member
  {
    let found = info != nil
    let info = info ?? stat()
    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    let early = member.safeModified - modified
    let coarse = info.st_mtim.tv_nsec % 1_000_000 == 0 && early >= -1e-5 && early < 2
    guard found, LocalScanner.isRegular(info), Int(info.st_size) == member.size,
      abs(early) < 1e-5 || coarse
    else {
      throw SyncError(
        .changedWhileSyncing,
        "“\(url.path)” changed while a newer version was downloaded; the change is kept, uploaded and merged."
      )
    }
    return LocalScanner.member(info)
  }

  private func freeName(beside url: URL) -> URL {
    let folder = url.deletingLastPathComponent()
    return folder.appendingPathComponent(
      FileName.unique(url.lastPathComponent, marker: { " \($0 + 1)" }) {
        (try? Sys.exists(folder.appendingPathComponent($0).path)) != false
      })
  }
}
