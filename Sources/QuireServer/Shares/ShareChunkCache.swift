import QuireSyncProtocol
import Synchronization

/// What each folder share's chunk checks already know: the items ever in the folder and their
/// members' chunks, up to a revision. A check reads only the revisions after it, so a
/// participant's request costs the changes since the last one, not the folder.
///
/// Only what is known to be allowed is kept (the set grows as the folder's items do), so a
/// chunk found here is allowed; one not found is checked again against the database before a
/// request is refused (``ShareStore/allowed(_:of:in:confirm:)``). Derived from the database,
/// it is per process: each replica keeps its own.
final class ShareChunkCache: Sendable {
  struct Entry {
    /// The folder the entry is of (a share follows its folder's rename: a new folder starts
    /// over).
    var folder: String
    /// The last revision read.
    var revision: Int64 = 0
    var items: Set<String> = []
    var chunks: Set<ContentHash> = []
  }

  /// At most this many shares are kept; past it the cache starts over (a check then reads its
  /// folder once again).
  static let capacity = 256

  private let entries = Mutex<[String: Entry]>([:])
  private let read = Atomic<Int>(0)

  /// The member rows read so far, for the tests that check a check's cost.
  var membersRead: Int { read.load(ordering: .relaxed) }

  func noteMembersRead(_ count: Int) {
    read.add(count, ordering: .relaxed)
  }

  /// The entry of `share` over `folder` (a new one if there is none, or it was of another
  /// folder).
  func entry(_ share: String, folder: String) -> Entry {
    entries.withLock { entries in
      guard let entry = entries[share], entry.folder == folder else { return Entry(folder: folder) }
      return entry
    }
  }

  /// Keeps `entry` for `share`, unless a check that read further kept its own meanwhile.
  func keep(_ entry: Entry, for share: String) {
    entries.withLock { entries in
      if let kept = entries[share], kept.folder == entry.folder, kept.revision >= entry.revision {
        return
      }
      if entries[share] == nil && entries.count >= Self.capacity { entries = [:] }
      entries[share] = entry
    }
  }
}
