import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

/// A folder's rename or move as one commit and one local rename, whatever its size.
extension SyncAgent {
  /// Commits each folder move among `moved` (items that changed path) and the placeholders
  /// `missingPlaceholders` found elsewhere in the folder as one ``FolderMove``. Returns the
  /// items left to move one by one (those of no whole folder, and those of a folder move the
  /// server refused: a clash, a shared folder, a WebDAV lock), and the placeholders found moved.
  /// A folder whose move committed has its items' records moved here in one transaction.
  /// Placeholders moved on their own are committed here: the scan does not list them, and they
  /// must not be taken for deleted.
  func commitFolderMoves(_ moved: [LocalItem], missingPlaceholders: [SyncedItem]) async throws
    -> (left: [LocalItem], placeholders: Set<String>)
  {
    guard share == nil else { return (moved, []) }
    let placeholders = movedPlaceholders(missingPlaceholders)
    guard !moved.isEmpty || !placeholders.isEmpty else { return (moved, []) }
    let paths =
      moved.compactMap { item in synced[item.id].map { (from: $0.path, to: item.path) } }
      + placeholders.map { (from: $0.known.path, to: $0.path) }
    let found = FolderMoveFinder.find(
      moved: paths, synced: synced.values.map(\.path),
      folderExists: { [self] path in (try? Sys.status(url(path).path)) != nil })
    for move in found {
      var request = FolderMoveRequest(
        commit: commitIdentifier(for: move),
        move: FolderMove(from: "Documents/" + move.from, to: "Documents/" + move.to))
      request.seen = state.cursor
      let refused: Bool
      do {
        _ = try await client.moveFolder(request)
        refused = false
      } catch {
        // Away, busy or signed out: the push stops as any other; refused, its items move one
        // by one.
        if [.unavailable, .rateLimited, .unauthorized].contains(error.code) { throw error }
        refused = true
      }
      state.setValue(nil, for: Self.folderMoveKey)
      if !refused { try recordMoved(move) }
    }
    try await commitPlaceholderMoves(
      placeholders.filter { synced.record($0.known.id)?.path != $0.path })
    return (
      moved.filter { synced.record($0.id)?.path != $0.path }, Set(placeholders.map(\.known.id))
    )
  }

  /// The state's key for the folder move being committed: its identifier, kept until the
  /// server's answer, so a move sent again after a lost answer is the same commit (the server
  /// answers it again), not a new one the server refuses for an empty folder.
  static let folderMoveKey = "folderMoveCommit"

  /// The commit identifier for `move`: the one kept for it if a try was cut off, else a new one
  /// (kept until the answer).
  private func commitIdentifier(for move: FolderMove) -> String {
    let key = "\(move.from)\n\(move.to)"  // no synced path holds a control character
    if let kept = state.value(Self.folderMoveKey), let split = kept.firstIndex(of: " "),
      kept[kept.index(after: split)...] == key
    {
      return String(kept[..<split])
    }
    let identifier = UUID().uuidString
    state.setValue(identifier + " " + key, for: Self.folderMoveKey)
    return identifier
  }

  /// `request` with what this device has applied of the journal (``CommitRequest/seen``): the
  /// server then takes its path through the folder moves it had not heard of, and leaves it
  /// where the device put it after those it had. A share's agent reads no folder moves.
  func stamped(_ request: CommitRequest) -> CommitRequest {
    guard share == nil else { return request }
    var stamped = request
    stamped.seen = state.cursor
    return stamped
  }

  /// Applies a folder move from the journal (`entry`, in the container's paths), which took
  /// the items in the folder at revisions up to `revisionsBefore`: one coordinated rename of
  /// the folder when it is here under its old name, nothing is at the new one and every synced
  /// item in it moved on the server, so presenters of documents inside follow it. Otherwise
  /// each item the move took that is still at its old path is moved on its own. The items'
  /// records follow in one transaction; a download of a revision from before the move, asked
  /// for later, lands at the item's new path.
  func applyFolderMove(_ entry: FolderMove, revisionsBefore: Int64) throws {
    let scope = FolderMove(from: "Documents", to: "Documents")
    guard let from = scope.relative(entry.from), let to = scope.relative(entry.to) else { return }
    appliedMoves.append((entry, revisionsBefore))
    if appliedMoves.count > 64 { appliedMoves.removeFirst() }
    let move = FolderMove(from: from, to: to)
    let old = url(move.from)
    let new = url(move.to)
    // What the disk says, looked at first; then the decision; then the steps.
    guard
      let steps = FolderMoveSteps.decide(
        move, revisionsBefore: revisionsBefore,
        synced: synced.values.lazy.map {
          (id: $0.id, path: $0.path, revision: $0.revision, isPlaceholder: $0.isPlaceholder)
        },
        folderHere: (try? Sys.status(old.path)) != nil,
        targetFree: (try? Sys.status(new.path)) == nil)
    else { return }
    switch steps.files {
    case .renameFolder:
      try Self.coordinatedMove(old, to: new)
    case .each(let moves, let husks):
      for itemMove in moves { try moveAlone(itemMove) }
      for husk in husks { try? Sys.rmdir(url(husk).path) }  // only an empty folder goes
    }
    try recordMoved(steps.records)
  }

  /// `path` (a container path) of a manifest at `revision` as it is now: taken through the
  /// folder moves applied here that came after that revision. A download of an old revision
  /// (an entry applied again after its item changed here) must not bring the item back to a
  /// folder that has moved since.
  func movedSince(_ path: String, revision: Int64) -> String {
    appliedMoves.filter { revision <= $0.revisionsBefore }.reduce(path) { $1.move.moved($0) }
  }

  /// Moves the records of the synced items inside `move`'s folder to their new paths. Their
  /// revisions stay: a commit on one of them is rebased by the server past the move.
  private func recordMoved(_ move: FolderMove) throws {
    var paths: [String: String] = [:]
    for known in synced.values where move.relative(known.path) != nil {
      paths[known.id] = move.moved(known.path)
    }
    try recordMoved(paths)
  }

  /// Moves the records of the items in `paths` (identity to new path).
  private func recordMoved(_ paths: [String: String]) throws {
    var records: [(item: SyncedItem, changed: [String], removed: [String])] = []
    for (id, path) in paths {
      guard var moved = synced[id] else { continue }
      moved.path = path
      records.append((moved, [], []))
    }
    try state.record(records, clearingStatus: false)
    for record in records { synced[record.item.id] = record.item }
  }

  /// Carries out one item's move of a folder move, if its precondition still holds: the file
  /// (or its placeholder) is at its recorded path, a file still carries the item's identity,
  /// and nothing is at its new path. Otherwise it is left as it is: where the item is now differs
  /// from its record, and the next push uploads that move.
  private func moveAlone(_ move: FolderMoveSteps.ItemMove) throws {
    var old = url(move.from)
    var new = url(move.to)
    if move.isPlaceholder {
      old = CloudPlaceholder.url(for: old)
      new = CloudPlaceholder.url(for: new)
    } else if ItemIdentity.stored(at: old) != move.id {
      return
    }
    guard (try? Sys.status(old.path)) != nil, (try? Sys.status(new.path)) == nil else { return }
    try Self.coordinatedMove(old, to: new)
  }

  /// Moves `old` to `new` (never over something there), making `new`'s folder if need be, in
  /// one coordinated write that tells the presenters of it, and of what is inside, where it went.
  private static func coordinatedMove(_ old: URL, to new: URL) throws {
    try Sys.makeFolders(new.deletingLastPathComponent().path)
    let coordinator = FileCoordinator()
    try coordinator.coordinate(
      writingItemAt: old, options: .forMoving, writingItemAt: new, options: .forReplacing
    ) { from, to in
      try Sys.renameNoReplace(from.path, to.path)
      coordinator.item(at: from, didMoveTo: to)
    }
  }
}
