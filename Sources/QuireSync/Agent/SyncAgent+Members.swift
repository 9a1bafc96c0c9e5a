import Foundation
import Quire
import QuireSyncProtocol

/// Packages that download member by member: a package opened on demand arrives with its list of
/// members, its large members as placeholders inside it; a coordinated read of such a member (an
/// album's image as it is shown) asks for its bytes, and the agent brings them with the members
/// that follow it in the same folder — what is about to be shown next.
extension SyncAgent {
  /// A download asked of the worker for one member, and how to answer it.
  typealias MemberJob = (
    member: String, progress: DownloadProgress?, done: CheckedContinuation<Void, any Error>
  )

  /// How much a member download brings beyond what was asked: the members after it in name
  /// order, up to this many bytes and members.
  static var readAheadBytes: Int { 16 << 20 }
  static var readAheadMembers: Int { 32 }

  /// The synced package holding the item at `relative`, and the member's path in it.
  func packageMember(_ relative: String) -> (item: SyncedItem, member: String)? {
    for known in synced.values
    where known.kind == .package && !known.isPlaceholder && relative.hasPrefix(known.path + "/") {
      return (known.item, String(relative.dropFirst(known.path.count + 1)))
    }
    return nil
  }

  /// Takes the first asked download for a package member, with every other one asked for the
  /// same package, and does them together; false if the first asked job is something else.
  func takeMemberDownloads() async -> Bool {
    guard let first = asked.first, first.kind == .download,
      let (known, _) = packageMember(first.path)
    else { return false }
    var jobs: [MemberJob] = []
    var others = asked
    others.removeAll()
    for job in asked {
      if job.kind == .download, let found = packageMember(job.path), found.item.id == known.id {
        jobs.append((found.member, job.progress, job.done))
      } else {
        others.append(job)
      }
    }
    asked = others
    do {
      try await downloadMembers(jobs, of: known)
    } catch {
      state.setStatus(
        known.id, path: known.path, state: .downloadError,
        error: error as? SyncError ?? SyncError(.unavailable, "\(error)"))
      for job in jobs { job.done.resume(throwing: error) }
    }
    return true
  }

  /// Downloads the members `jobs` ask for and the ones after them, answering each job once its
  /// member is in place (or was already); records them as synced. Throws only before any job
  /// is answered (the fetch failed).
  private func downloadMembers(_ jobs: [MemberJob], of known: SyncedItem) async throws {
    let inCloud = known.membersInCloud
    let cloud = Set(inCloud)
    let asked = jobs.map(\.member).filter { cloud.contains($0) }
    var wanted: [String] = []
    for member in asked where !wanted.contains(member) { wanted.append(member) }
    guard !wanted.isEmpty else {
      for job in jobs { job.done.resume() }
      return
    }
    // Read ahead: the members after the first asked, in the same folder, in name order.
    let folderOf = { (path: String) in path.split(separator: "/").dropLast().joined(separator: "/")
    }
    var extra = 0
    var bytes = wanted.reduce(0) { $0 + (known.members[$1]?.size ?? 0) }
    if let start = inCloud.firstIndex(of: wanted[0]) {
      for member in inCloud[(start + 1)...]
      where folderOf(member) == folderOf(wanted[0]) && !wanted.contains(member) {
        guard extra < Self.readAheadMembers, bytes < Self.readAheadBytes else { break }
        wanted.append(member)
        bytes += known.members[member]?.size ?? 0
        extra += 1
      }
    }
    var chunks: [ContentHash: Int] = [:]
    for path in wanted {
      for chunk in known.members[path]?.chunks ?? [] { chunks[chunk.hash] = chunk.size }
    }
    let spool = try ChunkSpool(bytes: chunks.values.reduce(0, +), in: folder)
    defer { spool.discard() }
    try await fetch(
      chunks, into: spool, for: known.id, path: known.path, progress: jobs.first?.progress)
    let package = url(known.path)
    var record = known
    var changed: [String] = []
    var placeholders = PlaceholderCache()
    let now = fileSystemNow()  // before the writes: see SyncedItem.Member.racy
    for path in wanted {
      guard let member = known.members[path] else { continue }
      let file = package.appendingPathComponent(path)
      do {
        let info = try placeMember(
          member, at: file, of: package, identity: known.id, spool: spool, cache: &placeholders)
        if let info {
          record.members[path]?.setLocal(LocalScanner.member(info), checkedAt: now)
          changed.append(path)
        }
        for job in jobs where job.member == path { job.done.resume() }
      } catch {
        for job in jobs where job.member == path { job.done.resume(throwing: error) }
      }
      synced[known.id] = record
    }
    for job in jobs where !wanted.contains(job.member) { job.done.resume() }
    // Every job is answered: a failure to record is noted, and the next scan finds the members
    // on disk with the server's contents (an upload of the same bytes, which the server keeps).
    do { try state.record(record, changed: changed, removed: []) } catch { note(error) }
    state.setStatus(known.id, path: known.path, state: nil)
  }

  /// Writes the member in place of its placeholder; nil if there is no placeholder any more
  /// (the member was downloaded meanwhile, or deleted here: the push decides then).
  private func placeMember(
    _ member: SyncedItem.Member, at file: URL, of package: URL, identity: String,
    spool: ChunkSpool, cache: inout PlaceholderCache
  ) throws -> stat? {
    guard let placeholder = cache.read(CloudPlaceholder.url(for: file)),
      placeholder.identity == identity
    else { return nil }
    return try CloudPlaceholder.downloadMember(
      at: file, ofPackage: package, mode: placeholder.mode ?? 0o644,
      modified: placeholder.modified
    ) { fd in
      for chunk in member.chunks {
        guard let bytes = try spool.bytes(of: chunk.hash) else {
          throw SyncError(.internalError, "Chunk \(chunk.hash) of “\(file.path)” was not fetched.")
        }
        try bytes.withUnsafeBytes { try Sys.write(fd, $0) }
      }
    }
  }

  /// Brings every member in the cloud of the package `known` here (the policy changed to
  /// download everything).
  func downloadAllMembers(of known: SyncedItem) async throws {
    let members = known.membersInCloud
    guard !members.isEmpty else { return }
    var chunks: [ContentHash: Int] = [:]
    for path in members {
      for chunk in known.members[path]?.chunks ?? [] { chunks[chunk.hash] = chunk.size }
    }
    let spool = try ChunkSpool(bytes: chunks.values.reduce(0, +), in: folder)
    defer { spool.discard() }
    try await fetch(chunks, into: spool, for: known.id, path: known.path, progress: nil)
    let package = url(known.path)
    var record = known
    var placeholders = PlaceholderCache()
    let now = fileSystemNow()  // before the writes: see SyncedItem.Member.racy
    for path in members {
      guard let member = known.members[path],
        let info = try placeMember(
          member, at: package.appendingPathComponent(path), of: package, identity: known.id,
          spool: spool, cache: &placeholders)
      else { continue }
      record.members[path]?.setLocal(LocalScanner.member(info), checkedAt: now)
    }
    try state.record(record, changed: members, removed: [])
    synced[known.id] = record
  }
}
