import Foundation
import QuireSyncProtocol

extension CommitStore {
  /// `request` with its chunk lists sent as edits (``ChunkListEdit``) rebuilt against the
  /// lists of its base revision, and checked as any change is. The chunks rebuilt are taken
  /// from `budget`, which a batch's commits share. `invalidManifest` if an edit has
  /// no base member or does not apply to it: the device sends the whole lists again.
  static func resolvingEdits(
    _ request: CommitRequest, container: Int64, maximumMembers: Int, budget: inout Int,
    _ db: any SQLSession
  ) throws -> CommitRequest {
    guard let edits = request.change.edits else { return request }
    guard edits.count <= maximumMembers, let base = request.base else {
      throw SyncError(
        .invalidManifest,
        "A commit with no base revision, or with more edits than members, sends whole chunk lists."
      )
    }
    var resolved = request
    resolved.change = try request.change.resolvingEdits(budget: &budget) { path throws(SyncError) in
      do {
        return try Self.member(db, container: container, item: request.item, path: path, at: base)
      } catch {
        throw SyncError(
          .internalError, "The server could not read member “\(path)” of revision \(base).",
          cause: error)
      }
    }
    try resolved.change.validate(kind: request.kind, maximumMembers: maximumMembers)
    return resolved
  }

  /// The chunks of `item`'s member at `path` in revision `revision`, or nil if it had none
  /// there. The live member is looked up first (the base of most commits is the current
  /// revision), through its index.
  static func member(
    _ db: any SQLSession, container: Int64, item: String, path: String, at revision: Int64
  ) throws -> [ChunkReference]? {
    let live = try db.row(
      """
      SELECT since, chunks FROM members WHERE container = ? AND item = ? AND path = ?
        AND until IS NULL
      """, [container, item, path])
    if let live, try (live["since"] as Int64) <= revision {
      return MemberRow.decode([UInt8]((try live["chunks"] as Data?) ?? Data()))
    }
    let then = try db.row(
      """
      SELECT chunks FROM members WHERE container = ? AND item = ? AND path = ? AND since <= ?
        AND until > ?
      """, [container, item, path, revision, revision])
    return try then.map { MemberRow.decode([UInt8]((try $0["chunks"] as Data?) ?? Data())) }
  }
}
