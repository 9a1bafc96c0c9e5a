import Foundation
import QuireCore
import QuireSyncProtocol

extension CommitStore {
  /// Commits `request`, made on a base that is no longer current, by merging it with the
  /// current revision against that base, inside the caller's transaction, the same way whichever
  /// device commits second, so every device ends with the same result.
  ///
  /// The members merge as `RevisionMerge` decides, a text member (or text document) both sides
  /// changed through `TextMerge`; the losing side's whole state of what still conflicts is kept
  /// as a conflict revision, which the journal reports. A deletion of an item changed meanwhile
  /// is kept aside as a conflict revision (modification beats deletion); a change to an item
  /// deleted meanwhile brings it back.
  static func mergeStale(
    _ request: CommitRequest, container: Int64, current: Int64, device: AuthenticatedDevice,
    blobs: any BlobStore, _ db: any SQLSession
  ) throws -> CommitResponse {
    let key = MergeKey(container: container, item: request.item)
    guard
      let currentRow = try db.row(
        "SELECT path, deleted, device, kind, committed FROM revisions WHERE id = ?", [current])
    else {
      throw SyncError(
        .internalError, "The current revision \(current) of \(request.item) is missing.")
    }
    if request.deleted {
      let kept = try insertRevision(
        request, base: request.base, conflict: true, device: device.id, key: key,
        commitID: request.commit, change: request.change, db)
      return CommitResponse(
        revision: kept.revision, status: .conflict, current: current, sequence: kept.sequence)
    }
    let base =
      try request.base.map { try members(db, container: container, item: request.item, at: $0) }
      ?? []
    var mine = Dictionary(base.map { ($0.path, $0) }) { first, _ in first }
    for path in request.change.removed { mine[path] = nil }
    for member in request.change.upserted { mine[member.path] = member }
    let theirsDeleted: Bool = try currentRow["deleted"]
    let theirsDevice: String = try currentRow["device"]
    let theirs =
      theirsDeleted
      ? nil
      : Dictionary(
        try members(db, container: container, item: request.item, at: current).map { ($0.path, $0) }
      ) { first, _ in first }
    let merge = try RevisionMerge(
      base: Dictionary(base.map { ($0.path, $0) }) { first, _ in first }, mine: mine,
      theirs: theirs, mineDevice: device.id, theirsDevice: theirsDevice
    ) { path, original, m, t in
      try mergeText(
        path: path, itemPath: request.path, kind: request.kind, base: original, mine: m,
        theirs: t, user: device.user, blobs: blobs, db)
    }
    let basePath = try request.base.flatMap {
      try db.value(String.self, "SELECT path FROM revisions WHERE id = ?", [$0])
    }
    let currentPath: String = try currentRow["path"]
    // A rename on one side wins over a path left as it was. A change to an item deleted
    // meanwhile brings it back where the device has it, at a free name: the deletion's path
    // may be in a folder the item has left (moved out of a shared folder), or taken since.
    let path =
      theirsDeleted
      ? try freePath(db, container: container, request.path, for: request.item)
      : request.path != basePath && currentPath == basePath ? request.path : currentPath
    if let theirs, merge.members == theirs, path == currentPath {
      // Nothing of this commit changes the current revision: it stays, and the commit is kept
      // aside (a conflict version if some of it lost; else hidden, only to answer a retry).
      let aside = try insertRevision(
        request, base: request.base, conflict: true, device: device.id, key: key,
        commitID: request.commit, change: request.change, merged: true, db)
      if !merge.mineLost {
        try db.execute(
          "UPDATE revisions SET resolved = 1, removed = 1 WHERE id = ?", [aside.revision])
      }
      return CommitResponse(
        revision: current, status: .merged, current: current, sequence: aside.sequence,
        conflictRevisions: merge.mineLost ? [aside.revision] : nil)
    }
    var kept: [Int64] = []
    if merge.mineLost {
      kept.append(
        try insertRevision(
          request, base: request.base, conflict: true, device: device.id, key: key,
          commitID: request.commit + "~mine", change: request.change, db
        ).revision)
    }
    if merge.theirsLost {
      var theirsRequest = request
      theirsRequest.path = currentPath
      kept.append(
        try insertRevision(
          theirsRequest, base: current, conflict: true, device: theirsDevice, key: key,
          commitID: request.commit + "~theirs", change: ManifestChange(),
          committed: try currentRow["committed"], db
        ).revision)
    }
    let before = theirs ?? [:]
    let change = ManifestChange(
      upserted: merge.members.values.filter { before[$0.path] != $0 }.sorted { $0.path < $1.path },
      removed: before.keys.filter { merge.members[$0] == nil }.sorted())
    var result = request
    result.path = path
    result.base = current
    result.change = change
    let made = try insertRevision(
      result, base: current, conflict: false, device: device.id, key: key,
      commitID: request.commit, change: nil, merged: true, db)
    try apply(result, revision: made.revision, container: container, db)
    return CommitResponse(
      revision: made.revision, status: .merged, current: made.revision, sequence: made.sequence,
      conflictRevisions: kept.isEmpty ? nil : kept)
  }

  struct MergeKey {
    var container: Int64
    var item: String
  }

  /// Keeps `request` aside as a conflict version of its item, leaving the current revision as
  /// it is: what a commit to an item a WebDAV client has locked becomes. The version records
  /// the lock's owner, so the device's open document can say why its edit is aside.
  static func keptAside(
    _ request: CommitRequest, container: Int64, current: Int64, device: AuthenticatedDevice,
    lockedBy owner: String, _ db: any SQLSession
  ) throws -> CommitResponse {
    let kept = try insertRevision(
      request, base: request.base, conflict: true, device: device.id,
      key: MergeKey(container: container, item: request.item), commitID: request.commit,
      change: request.change, lockedBy: owner, db)
    return CommitResponse(
      revision: kept.revision, status: .conflict, current: current, sequence: kept.sequence)
  }

  /// Inserts a revision row and its journal entry. A kept copy of the current revision keeps
  /// its device and time: it is the same version, now aside.
  private static func insertRevision(
    _ request: CommitRequest, base: Int64?, conflict: Bool, device: String, key: MergeKey,
    commitID: String, change: ManifestChange?, merged: Bool = false,
    committed: Double = Date().timeIntervalSince1970, lockedBy: String? = nil,
    _ db: any SQLSession
  ) throws -> (revision: Int64, sequence: Int64) {
    let revision = try inserted(
      db,
      """
      INSERT INTO revisions(container, item, base, kind, path, deleted, conflict, device,
        committed, commitID, change, merged, lockedBy)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      RETURNING id
      """,
      [
        key.container, key.item, base, request.kind.rawValue, request.path, request.deleted,
        conflict, device, committed, commitID,
        try change.map { try JSONEncoder().encode($0) }, merged, lockedBy,
      ])
    return (revision, try journal(db, container: key.container, revision: revision))
  }
}
