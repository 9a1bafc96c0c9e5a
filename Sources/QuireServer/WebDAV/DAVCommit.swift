import QuireSyncProtocol

/// What one WebDAV write does: the commits it makes, in one transaction, and then the folder
/// rows and dead properties that follow its paths.
struct DAVCommit: Sendable {
  /// The commits, in order (a deletion of what a MOVE overwrites comes before the move).
  var requests: [CommitRequest] = []
  /// Paths whose folder rows and properties (at and under them) are dropped.
  var forgotten: [DAVPath] = []
  /// Folders that stay, though the write may have taken their last item away.
  var keptFolders: [DAVPath] = []
  /// Folder rows and properties copied from one path to another, whether the source's stay,
  /// and whether those under it go too (not for a COPY with `Depth: 0`).
  var moved: [(from: DAVPath, to: DAVPath, keep: Bool, deep: Bool)] = []

  /// `other`'s commits and rows after this one's.
  mutating func append(_ other: DAVCommit) {
    requests += other.requests
    forgotten += other.forgotten
    keptFolders += other.keptFolders
    moved += other.moved
  }
}
