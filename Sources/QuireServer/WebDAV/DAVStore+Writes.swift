import Foundation
import QuireSyncProtocol

/// WebDAV's writes, each made of the commits a device would send: a PUT is a new revision (or a
/// package member's change), a DELETE a deletion, a MOVE a rename that sends no bytes, a COPY
/// new items naming the same chunks. The folder rows and dead properties follow the paths.
extension DAVStore {
  /// The resource a PUT at `path` replaces (nil for a new one) and the collection that takes
  /// it, once `check` (conditions and locks) has passed, with what `check` returned: all
  /// checked before the body is read.
  func putTarget<Checked>(
    at path: DAVPath, drive: DAVDrive, check: (DAVResource?) throws(DAVError) -> Checked
  ) throws(DAVError) -> (target: DAVResource?, parent: DAVResource, checked: Checked) {
    let target = try wrap { () throws(SyncError) in try resource(at: path, drive: drive) }
    let checked = try check(target)
    if let target, target.isCollection {
      throw DAVError(
        .methodNotAllowed, .forbidden, "“\(path)” is a folder; a PUT writes a file.")
    }
    guard
      let parent = try wrap({ () throws(SyncError) in
        try resource(at: path.parent, drive: drive)
      }), parent.isCollection
    else { throw DAVError.noParent(path) }
    return (target, parent, checked)
  }

  /// Stores the chunks of `frames` (``ChunkFrames``) in `drive`'s owner's account: a PUT's body, a batch at a
  /// time.
  func storeFrames(_ frames: [UInt8], drive: DAVDrive) throws(DAVError) {
    try wrap { () throws(SyncError) in
      _ = try chunks.storeChunks(
        user: drive.owner, body: frames, maximumChunk: ContentChunker.standard.maximumSize)
    }
  }

  /// The commit that puts `contents` (its chunks stored) at `path`, in place of `target`, in
  /// `parent`: a new revision of the file there (based on its current one), a change of the
  /// package member there, or a new document. Also whether it makes a new one.
  func put(
    _ contents: DAVUpload.Contents, at path: DAVPath, target: DAVResource?, parent: DAVResource
  ) -> (created: Bool, commit: DAVCommit) {
    let now = Date().timeIntervalSince1970
    let request: CommitRequest
    switch (target?.kind, parent.kind) {
    case (.file(let item, let revision)?, _):
      request = CommitRequest(
        commit: UUID().uuidString, item: item, kind: .file, path: path.path, base: revision,
        change: ManifestChange(upserted: [contents.member(path: "", modified: now)]))
    case (.member(let item, let revision, let member)?, _):
      request = CommitRequest(
        commit: UUID().uuidString, item: item, kind: .package,
        path: path.package(holding: member), base: revision,
        change: ManifestChange(upserted: [contents.member(path: member, modified: now)]))
    case (nil, .package(let item, let revision)), (nil, .memberFolder(let item, let revision, _)):
      let folder = parent.item?.member ?? ""
      let member = folder.isEmpty ? path.name : folder + "/" + path.name
      request = CommitRequest(
        commit: UUID().uuidString, item: item, kind: .package,
        path: path.package(holding: member), base: revision,
        change: ManifestChange(upserted: [contents.member(path: member, modified: now)]))
    default:
      request = CommitRequest(
        commit: UUID().uuidString, item: UUID().uuidString, kind: .file, path: path.path,
        base: nil, change: ManifestChange(upserted: [contents.member(path: "", modified: now)]))
    }
    return (target == nil, DAVCommit(requests: [request]))
  }

  /// Makes the empty folder `path` (MKCOL).
  func makeFolder(at path: DAVPath, drive: DAVDrive) throws(DAVError) {
    guard !path.isDrive else {
      throw DAVError(.methodNotAllowed, .alreadyExists, "The drive exists already.")
    }
    if try wrap({ () throws(SyncError) in try resource(at: path, drive: drive) }) != nil {
      throw DAVError(.methodNotAllowed, .alreadyExists, "“\(path)” exists already.")
    }
    guard
      let parent = try wrap({ () throws(SyncError) in
        try resource(at: path.parent, drive: drive)
      }), parent.isCollection
    else { throw DAVError.noParent(path) }
    guard parent.kind == .folder else {
      throw DAVError(
        .forbidden, .forbidden,
        "“\(path.parent)” is a document package; its folders come from its members. PUT a member instead."
      )
    }
    try wrap { () throws(SyncError) in
      try write { db in
        let container = try CommitStore.container(
          db, user: drive.owner, identifier: drive.container, create: true)!
        try db.execute(
          "INSERT INTO davFolders(container, path, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
          [container, path.path, Date().timeIntervalSince1970])
      }
    }
  }

  /// The commits that delete `resource` (every item in a folder), and the folder rows and
  /// properties that go with it.
  func deletion(of resource: DAVResource, drive: DAVDrive) throws(DAVError) -> DAVCommit {
    if resource.path.isDrive {
      throw DAVError(.forbidden, .forbidden, "The drive itself cannot be deleted.")
    }
    var commit = DAVCommit(forgotten: [resource.path], keptFolders: [resource.path.parent])
    switch resource.kind {
    case .folder:
      commit.requests = try liveItems(under: resource.path, drive: drive).map {
        CommitRequest(
          commit: UUID().uuidString, item: $0.item, kind: $0.kind, path: $0.path.path,
          base: $0.revision, deleted: true, change: ManifestChange())
      }
    case .file(let item, let revision), .package(let item, let revision):
      commit.requests = [
        CommitRequest(
          commit: UUID().uuidString, item: item,
          kind: resource.isCollection ? .package : .file, path: resource.path.path,
          base: revision, deleted: true, change: ManifestChange())
      ]
    case .member(let item, let revision, let member):
      commit.requests = [
        CommitRequest(
          commit: UUID().uuidString, item: item, kind: .package,
          path: resource.path.package(holding: member), base: revision,
          change: ManifestChange(removed: [member]))
      ]
    case .memberFolder(let item, let revision, let member):
      let removed = try wrap { () throws(SyncError) in
        try members(item: item, revision: revision, drive: drive)
      }.map(\.path)
        .filter { $0.startsWithBytes(member + "/") }
      commit.requests = [
        CommitRequest(
          commit: UUID().uuidString, item: item, kind: .package,
          path: resource.path.package(holding: member), base: revision,
          change: ManifestChange(removed: removed))
      ]
    }
    return commit
  }

  /// The live items at or under `folder`, with their current revisions.
  func liveItems(under folder: DAVPath, drive: DAVDrive) throws(DAVError) -> [DAVLiveItem] {
    try wrap { () throws(SyncError) in
      try read { db in
        guard let container = try Self.containerID(db, drive: drive) else { return [] }
        return try db.rows(
          """
          SELECT item, kind, path, current FROM items WHERE container = ? AND deleted = 0
            AND \(db.startsWith("path")) ORDER BY path
          """, [container] + db.startsWithArguments(folder.prefix)
        ).map { row in
          DAVLiveItem(
            item: try row["item"], kind: ItemKind(rawValue: try row["kind"]) ?? .file,
            path: DAVPath(stored: try row["path"], view: folder.view),
            revision: try row["current"])
        }
      }
    }
  }

  /// Applies `commit`'s folder rows and properties after its commits were made.
  func finish(_ commit: DAVCommit, drive: DAVDrive) throws(DAVError) {
    guard !commit.forgotten.isEmpty || !commit.keptFolders.isEmpty || !commit.moved.isEmpty
    else { return }
    try wrap { () throws(SyncError) in
      try write { db in
        let container = try CommitStore.container(
          db, user: drive.owner, identifier: drive.container, create: true)!
        for path in commit.forgotten {
          for table in ["davFolders", "davProperties", "davLocks"] {
            _ = try db.execute(
              "DELETE FROM \(table) WHERE container = ? AND (path = ? OR \(db.startsWith("path")))",
              [container, path.path] + db.startsWithArguments(path.prefix))
          }
        }
        for (from, to, keep, deep) in commit.moved {
          try Self.copyRows(db, container: container, from: from, to: to, remove: !keep, deep: deep)
        }
        for path in commit.keptFolders where !path.isDrive {
          _ = try db.execute(
            "INSERT INTO davFolders(container, path, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            [container, path.path, Date().timeIntervalSince1970])
        }
      }
    }
  }

  /// Copies (or moves) the folder rows and properties at `from`, and under it if `deep`, to `to`.
  /// A device's folder move (``CommitStore/moveFolder(_:container:device:)``) moves them too.
  static func copyRows(
    _ db: any SQLSession, container: Int64, from: DAVPath, to: DAVPath, remove: Bool, deep: Bool
  ) throws {
    let under = deep ? "OR \(db.startsWith("path"))" : ""
    let arguments: [any SQLArgument] =
      [container, from.path] + (deep ? db.startsWithArguments(from.prefix) : [])
    let folders = try db.rows(
      "SELECT path, created FROM davFolders WHERE container = ? AND (path = ? \(under))",
      arguments)
    let properties = try db.rows(
      "SELECT path, namespace, name, value FROM davProperties WHERE container = ? AND (path = ? \(under))",
      arguments)
    func moved(_ path: String) -> String {
      path == from.path ? to.path : to.prefix + path.droppingBytes(from.prefix.utf8.count)
    }
    if remove {  // a moved resource's locks stay behind, and so end (RFC 4918 §7.5)
      for table in ["davFolders", "davProperties", "davLocks"] {
        _ = try db.execute(
          "DELETE FROM \(table) WHERE container = ? AND (path = ? OR \(db.startsWith("path")))",
          [container, from.path] + db.startsWithArguments(from.prefix))
      }
    }
    for row in folders {
      _ = try db.execute(
        "INSERT INTO davFolders(container, path, created) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
        [container, moved(try row["path"]), try row["created"] as Double])
    }
    for row in properties {
      _ = try db.execute(
        """
        INSERT INTO davProperties(container, path, namespace, name, value) VALUES (?, ?, ?, ?, ?)
          ON CONFLICT (container, path, namespace, name) DO UPDATE SET value = excluded.value
        """,
        [
          container, moved(try row["path"]), try row["namespace"] as String,
          try row["name"] as String, try row["value"] as String,
        ])
    }
  }

  /// Runs `body`, its sync errors as WebDAV's (with the status their code maps to).
  func wrap<T>(_ body: () throws(SyncError) -> T) throws(DAVError) -> T {
    do {
      return try body()
    } catch {
      throw DAVError(SyncError(error.code, error.message))
    }
  }
}
