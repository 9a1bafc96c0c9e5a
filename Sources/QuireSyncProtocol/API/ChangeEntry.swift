/// One entry of a container's change journal: a commit, in commit order. An item's commit
/// names its item and revision; a folder's move (``folderMove``) names neither, and stands for
/// the move of every item in the folder.
public struct ChangeEntry: Codable, Sendable, Equatable {
  /// The journal position; entries are numbered in the order their commits were made.
  public var sequence: Int64
  /// The item's stable identity.
  public var item: String
  /// The revision committed.
  public var revision: Int64
  /// The revision it was made from.
  public var base: Int64?
  /// Whether the item is a file or a package.
  public var kind: ItemKind
  /// The item's path in the container at this revision.
  public var path: String
  /// Whether this revision deletes the item.
  public var deleted: Bool
  /// Whether the revision is a conflict revision (it did not become current).
  public var conflict: Bool
  /// The device that committed it.
  public var device: String
  /// When the server committed it, in seconds since 1970.
  public var committed: Double
  /// The item's conflict revisions not yet resolved, as the journal was read (nil: none).
  public var unresolvedConflicts: [Int64]?
  /// The folder move this entry is, if it is one; nil for an item's commit. Its `item` is
  /// empty, its `path` the folder's new path, and its `revision` the highest revision number
  /// before the move: the items it took were in the folder at revisions up to that, and one a
  /// device committed there later stays where it is.
  public var folderMove: FolderMove?

  /// An entry.
  public init(
    sequence: Int64, item: String, revision: Int64, base: Int64?, kind: ItemKind, path: String,
    deleted: Bool, conflict: Bool, device: String, committed: Double,
    unresolvedConflicts: [Int64]? = nil
  ) {
    self.sequence = sequence
    self.item = item
    self.revision = revision
    self.base = base
    self.kind = kind
    self.path = path
    self.deleted = deleted
    self.conflict = conflict
    self.device = device
    self.committed = committed
    self.unresolvedConflicts = unresolvedConflicts
  }

  /// Whether the item is in the container's `Documents` scope, which the user's drive shows (the
  /// rest is the app's data scope). A folder move is not an item's entry: it is never in scope.
  public var isInDocumentsScope: Bool { folderMove == nil && path.hasPrefix("Documents/") }

  /// The entry at `sequence` for `move`, which `device` committed at `committed`, when the
  /// highest revision number was `revisionsBefore`.
  public static func moving(
    _ move: FolderMove, sequence: Int64, revisionsBefore: Int64, device: String,
    committed: Double
  ) -> ChangeEntry {
    var entry = ChangeEntry(
      sequence: sequence, item: "", revision: revisionsBefore, base: nil, kind: .package,
      path: move.to,
      deleted: false, conflict: false, device: device, committed: committed)
    entry.folderMove = move
    return entry
  }
}
