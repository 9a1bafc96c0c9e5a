import Foundation
import QuireSyncProtocol

/// MOVE and COPY: a move is a rename of each item (no bytes move); a copy is a new item naming
/// the same chunks. A package's members move and copy within their package.
extension DAVStore {
  /// The commits that move (or copy) `source` to `target`, after deleting what is there if
  /// `overwrite`. `deep` is false for a COPY with `Depth: 0` (the folder alone). Returns them
  /// and whether `target` was new.
  func transfer(
    _ source: DAVResource, to target: DAVPath, move: Bool, overwrite: Bool, deep: Bool,
    drive: DAVDrive
  ) throws(DAVError) -> (created: Bool, commit: DAVCommit) {
    if source.path.isDrive {
      throw DAVError(.forbidden, .forbidden, "The drive itself cannot be moved or copied.")
    }
    if source.path.contains(target) || target.contains(source.path) {
      throw DAVError(
        .forbidden, .forbidden,
        "“\(target)” is “\(source.path)”, inside it or a folder that holds it; choose another destination."
      )
    }
    guard
      let parent = try wrap({ () throws(SyncError) in
        try resource(at: target.parent, drive: drive)
      }), parent.isCollection
    else { throw DAVError.noParent(target) }
    let existing = try wrap { () throws(SyncError) in try resource(at: target, drive: drive) }
    if case .member = source.kind, existing?.isCollection == true {
      throw DAVError(
        .conflict, .alreadyExists,
        "“\(target)” is a folder of the package; a member cannot replace it. Choose another name.")
    }
    if existing != nil, !overwrite {
      throw DAVError.precondition(
        "“\(target)” exists and the request said not to overwrite it (Overwrite: F).")
    }
    var commit = DAVCommit()
    if let existing { commit.append(try deletion(of: existing, drive: drive)) }
    if move { commit.keptFolders.append(source.path.parent) }
    commit.moved.append((source.path, target, !move, deep))
    switch (source.kind, parent.kind) {
    case (.folder, .folder):
      commit.keptFolders.append(target)
      guard deep else { break }
      for item in try liveItems(under: source.path, drive: drive) {
        commit.requests.append(
          try transferred(
            item, to: source.path.rebase(item.path, onto: target), move: move,
            drive: drive))
      }
    case (.file(let item, let revision), .folder), (.package(let item, let revision), .folder):
      let live = DAVLiveItem(
        item: item, kind: source.isCollection ? .package : .file, path: source.path,
        revision: revision)
      commit.requests.append(try transferred(live, to: target, move: move, drive: drive))
    case (.member(let item, let revision, let member), _):
      guard let inPackage = parent.item, inPackage.item == item else {
        throw DAVError(
          .forbidden, .forbidden,
          "A member of a package moves and copies only within its package; download it and PUT it elsewhere."
        )
      }
      let members = try wrap { () throws(SyncError) in
        try self.members(item: item, revision: revision, drive: drive)
      }
      guard var moved = members.first(where: { $0.path == member }) else {
        throw DAVError.notFound(source.path)
      }
      let packagePath = source.path.package(holding: member)
      moved.path = inPackage.member.isEmpty ? target.name : inPackage.member + "/" + target.name
      // A member overwritten is replaced by this change, not deleted first.
      commit = DAVCommit(moved: [(source.path, target, !move, true)])
      commit.requests = [
        CommitRequest(
          commit: UUID().uuidString, item: item, kind: .package, path: packagePath,
          base: revision,
          change: ManifestChange(upserted: [moved], removed: move ? [member] : []))
      ]
    default:
      throw DAVError(
        .forbidden, .forbidden,
        "“\(source.path)” cannot go into “\(target.parent)”: packages take members only, and a package's folders move within it."
      )
    }
    return (existing == nil, commit)
  }

  /// The commit that renames `item` to `target`, or makes a new item there with its members.
  private func transferred(_ item: DAVLiveItem, to target: DAVPath, move: Bool, drive: DAVDrive)
    throws(DAVError) -> CommitRequest
  {
    if move {
      return CommitRequest(
        commit: UUID().uuidString, item: item.item, kind: item.kind, path: target.path,
        base: item.revision, change: ManifestChange())
    }
    let members = try wrap { () throws(SyncError) in
      try self.members(item: item.item, revision: item.revision, drive: drive)
    }
    return CommitRequest(
      commit: UUID().uuidString, item: UUID().uuidString, kind: item.kind, path: target.path,
      base: nil, change: ManifestChange(upserted: members))
  }
}
