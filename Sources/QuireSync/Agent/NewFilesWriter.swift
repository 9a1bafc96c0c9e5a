import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Places many new flat documents at once — a first sync's page of the journal — at the cost of
/// a few system calls each and a handful per batch, where ``DownloadWriter`` pays an fsync and a
/// coordination per document:
///
/// 1. each file is written under a hidden temporary name beside its target (`.quire-sync-…`,
///    which the agent removes at start if a crash left it), with its mode, time and identity;
/// 2. one `syncfs` makes all of them durable;
/// 3. one coordinated write of every target renames each into place, never over a file that
///    appeared there meanwhile (that one is left to ``DownloadWriter``, which picks a free name);
/// 4. each folder that gained a name is fsynced, so the names are as durable as the bytes.
///
/// A reader sees each document whole or not at all, as with ``DownloadWriter``.
struct NewFilesWriter {
  /// One document to place: its identity, where it goes (relative to the folder) and its one
  /// member.
  struct File {
    var identity: String
    var relative: String
    var member: ManifestMember
  }

  let folder: URL

  /// Places `files`; returns, by index in `files`, the local stat of each one placed. A file not
  /// placed (its name taken meanwhile) is not in the result and left for the caller.
  ///
  /// Placing and recording are one unit: `record` gets each group as soon as its names appear,
  /// with no suspension in between, so a task cancelled (or a group failing) part-way leaves no
  /// named file unrecorded.
  ///
  /// - Throws: ``SyncError`` `unavailable` if the disk refuses a write; nothing is placed then.
  func place(
    _ files: [File], chunk: (ContentHash) throws -> [UInt8],
    record: ([Int: LocalItem.Member]) throws -> Void,
    isolation: isolated (any Actor)? = #isolation
  ) async throws -> [Int: LocalItem.Member] {
    var staged: [(index: Int, temporary: String, target: URL)] = []
    defer { for file in staged { try? Sys.unlink(file.temporary) } }  // those not renamed into place
    var folders = Set<String>()
    for (index, file) in files.enumerated() {
      let target = folder.appendingPathComponent(file.relative)
      let parent = target.deletingLastPathComponent()
      if !folders.contains(parent.path) {
        // A folder that cannot be made (a file holds its name) is left to the one-by-one path,
        // which reports it on the item.
        guard (try? AgentFolders.make(parent.path)) != nil else { continue }
        folders.insert(parent.path)
      }
      let temporary = parent.appendingPathComponent(".quire-sync-\(UUID().uuidString)")
      let writer = DownloadWriter(folder: folder, identity: file.identity)
      staged.append((index, temporary.path, target))
      try writer.writeFile(file.member, at: temporary, atomically: false, durable: false) { fd in
        for piece in file.member.chunks {
          do { try chunk(piece.hash).withUnsafeBytes { try Sys.write(fd, $0) } } catch {
            throw SyncError(
              .unavailable, "Could not write “\(target.path)”: \(error). Check the free space.",
              cause: error)
          }
        }
      }
      try ItemIdentity.assign(file.identity, to: temporary)
    }
    try DownloadWriter.sync(folder.path) { try Sys.syncFileSystem($0) }
    var placed: [Int: LocalItem.Member] = [:]
    // A few dozen targets per coordination: each holds a handful of byte-range locks on the
    // one coordination lock file, and the kernel walks that file's list of locks on every lock
    // taken, by any process; a thousand targets at once would slow every coordination.
    for start in stride(from: 0, to: staged.count, by: 64) {
      let group = staged[start..<min(start + 64, staged.count)]
      let intents = group.map {
        FileAccessIntent.writingIntent(with: $0.target, options: .forReplacing)
      }
      let named = try await FileCoordinator().coordinate(with: intents) { urls in
        var named: [Int: LocalItem.Member] = [:]
        for (file, url) in zip(group, urls) {
          // The stat of what was written, taken before its name appears: a program that
          // writes the new file at once is then a change to upload, not taken for the download.
          guard let info = try? Sys.status(file.temporary),
            (try? Sys.renameNoReplace(file.temporary, url.path)) != nil
          else { continue }
          named[file.index] = LocalScanner.member(info)
        }
        return named
      }
      placed.merge(named) { _, new in new }
      try record(named)
    }
    staged.removeAll { placed[$0.index] != nil }
    // The new names: each folder that gained one, and the folders above it up to the synced
    // folder (some were made just now).
    var named = Set<String>()
    for path in folders {
      var url = URL(fileURLWithPath: path)
      while url.path.count >= folder.path.count, named.insert(url.path).inserted {
        url = url.deletingLastPathComponent()
      }
    }
    for path in named { try DownloadWriter.sync(path) { try Sys.fsync($0) } }
    return placed
  }

}
