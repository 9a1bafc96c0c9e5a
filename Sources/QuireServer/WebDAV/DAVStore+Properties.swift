import Foundation
import QuireSyncProtocol

/// Properties: the live ones computed from what the drive holds, and the dead ones clients set
/// with PROPPATCH, kept per path.
extension DAVStore {
  /// The live properties WebDAV clients read, and which of them a PROPPATCH may not change.
  static let liveNames: [DAVPropertyName] = [
    "resourcetype", "getcontentlength", "getlastmodified", "getetag", "getcontenttype",
    "creationdate", "supportedlock", "lockdiscovery",
  ].map(DAVPropertyName.dav)

  /// The live property `name` of `resource` (value XML), or nil if it has none; `locks` are
  /// the locks that cover it. Computed per name, with no dictionary per resource: a listing of
  /// 10 000 items asks 80 000 times.
  static func live(_ name: DAVPropertyName, of resource: DAVResource, locks: [DAVLock])
    -> String?
  {
    guard name.namespace == "DAV:" else { return nil }
    switch name.name {
    case "resourcetype": return resource.isCollection ? "<D:collection/>" : ""
    case "supportedlock": return supportedLock
    case "lockdiscovery": return locks.map(\.activeLock).joined()
    case "getlastmodified": return resource.modified.map(DAVXML.httpDate)
    case "creationdate": return resource.modified.map(DAVXML.isoDate)
    case "getetag": return resource.etag.map { "\"\($0)\"" }
    case "getcontentlength": return resource.isCollection ? nil : String(resource.size ?? 0)
    case "getcontenttype":
      return resource.isCollection
        ? nil : DAVXML.escape(PublicPage.contentType(resource.path.name))
    default: return nil
    }
  }

  /// Exclusive and shared write locks.
  static let supportedLock = ["exclusive", "shared"].map {
    "<D:lockentry><D:lockscope><D:\($0)/></D:lockscope><D:locktype><D:write/></D:locktype></D:lockentry>"
  }.joined()

  /// The dead properties of the paths in `paths`, by path.
  func deadProperties(of paths: [DAVPath], drive: DAVDrive) throws(DAVError)
    -> [DAVPath: [DAVPropertyName: String]]
  {
    guard !paths.isEmpty else { return [:] }
    return try wrap { () throws(SyncError) in
      try read { db in
        guard let container = try Self.containerID(db, drive: drive) else { return [:] }
        var found: [DAVPath: [DAVPropertyName: String]] = [:]
        let wanted = Set(paths.map(\.path))
        // One folder's listing asks for all its children: read the parent's range once.
        let parents = Set(paths.map { $0.parent.path })
        for parent in parents {
          let folder = DAVPath(stored: parent)
          try db.forEach(
            """
            SELECT path, namespace, name, value FROM davProperties WHERE container = ?
              AND (path = ? OR \(db.startsWith("path")))
            """, [container, parent] + db.startsWithArguments(folder.prefix)
          ) { row in
            let path: String = try row["path"]
            guard wanted.contains(path) else { return }
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
