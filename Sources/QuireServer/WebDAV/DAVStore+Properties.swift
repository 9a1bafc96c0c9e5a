import Foundation
import QuireSyncProtocol

/// Properties: the live ones computed from what the drive holds, and the dead ones clients set
/// with PROPPATCH, kept per path.
extension DAVStore {
  /// The live properties WebDAV clients read, and which of them a PROPPATCH may not change.
  static let liveNames: [DAVPropertyName] = DAVLiveProperty.allCases.map(\.name)

  /// The dead properties of the paths in `paths`, and (with `childrenOf`) of everything
  /// directly in that folder, by path.
  func deadProperties(of paths: [DAVPath], childrenOf folder: DAVPath? = nil, drive: DAVDrive)
    throws(DAVError) -> [DAVPath: [DAVPropertyName: String]]
  {
    guard !paths.isEmpty || folder != nil else { return [:] }
    return try wrap { () throws(SyncError) in
      try read { db in
        guard let container = try Self.containerID(db, drive: drive) else { return [:] }
        var found: [DAVPath: [DAVPropertyName: String]] = [:]
        let wanted = Set(paths.map(\.path))
        // One folder's listing asks for all its children: read the parent's range once.
        let parents = Set(paths.map { $0.parent.path } + (folder.map { [$0.path] } ?? []))
        for parent in parents {
          let range = DAVPath(stored: parent)
          try db.forEach(
            """
            SELECT path, namespace, name, value FROM davProperties WHERE container = ?
              AND (path = ? OR \(db.startsWith("path")))
            """, [container, parent] + db.startsWithArguments(range.prefix)
          ) { row in
            let path: String = try row["path"]
            guard
              wanted.contains(path)
                || (folder.map { DAVPath(stored: path).parent.path == $0.path } ?? false)
            else { return }
            found[DAVPath(stored: path), default: [:]][
              DAVPropertyName(namespace: try row["namespace"], name: try row["name"])] =
              try row["value"]
          }
        }
        return found
      }
    }
  }

  /// Sets (value) and removes (nil) dead properties of `path`, in order, in one transaction.
  func patchProperties(
    _ operations: [(DAVPropertyName, String?)], of path: DAVPath, drive: DAVDrive
  ) throws(DAVError) {
    try wrap { () throws(SyncError) in
      try write { db in
        let container = try CommitStore.container(
          db, user: drive.owner, identifier: drive.container, create: true)!
        for (name, value) in operations {
          if let value {
            _ = try db.execute(
              """
              INSERT INTO davProperties(container, path, namespace, name, value)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (container, path, namespace, name) DO UPDATE SET value = excluded.value
              """, [container, path.path, name.namespace, name.name, value])
          } else {
            _ = try db.execute(
              "DELETE FROM davProperties WHERE container = ? AND path = ? AND namespace = ? AND name = ?",
              [container, path.path, name.namespace, name.name])
          }
        }
      }
    }
  }
}
