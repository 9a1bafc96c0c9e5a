import QuireSyncProtocol

/// "Shared with me": what other accounts share with the signed-in one, each a part of the
/// drive (``DAVMount``) at its name, as the participant's devices sync it.
extension DAVStore {
  /// The folder of the drive where shares are, as on a device (`SyncAgent.sharedFolderName`).
  static let sharedFolder = "Shared with me"

  /// What other accounts share with `account`, by the name each has in "Shared with me",
  /// oldest first: a shared document's or folder's name, and for a later share with a name
  /// taken, "Name (owner)" (before the extension). Only what is in its container's `Documents`
  /// is shown, as only that is a drive.
  func sharedMounts(account: Int64) throws(SyncError) -> [(name: String, mount: DAVMount)] {
    let rows = try read { db in
      try db.rows(
        """
        SELECT s.id, s.item, s.folder, s.role, c.account, c.identifier, i.path, o.name AS owner
        FROM shares s JOIN containers c ON c.id = s.container JOIN users o ON o.id = c.account
          LEFT JOIN items i ON i.container = s.container AND i.item = s.item
        WHERE s.grantee = ? AND s.revoked = 0 AND (s.folder IS NOT NULL OR i.deleted = 0)
        ORDER BY s.created, s.id
        """, [account]
      ).map { row in
        let folder: String? = try row["folder"]
        return (
          root: try folder ?? (row["path"] as String),
          role: ShareRole(rawValue: try row["role"]) ?? .read,
          drive: DAVDrive(
            owner: try row["account"], container: try row["identifier"],
            item: folder == nil ? try row["item"] as String : nil),
          owner: try row["owner"] as String,
          share: try row["id"] as String
        )
      }
    }
    var mounts: [(name: String, mount: DAVMount)] = []
    var taken: Set<String> = []
    for row in rows where row.root.startsWithBytes(DAVPath.drive.prefix) {
      let name = Self.freeName(DAVPath(stored: row.root).name, owner: row.owner, taken: taken)
      taken.insert(name)
      let view = DAVView(root: row.root, shown: "/\(Self.sharedFolder)/\(name)")
      mounts.append(
        (
          name,
          DAVMount(
            account: account, drive: row.drive, access: row.role == .write ? .writer : .reader,
            root: DAVPath(stored: row.root, view: view), share: row.share)
        ))
    }
    return mounts
  }

  /// `name`, or if it is `taken`, "Name (owner)" with its extension after, then "Name (owner
  /// 2)" and on.
  static func freeName(_ name: String, owner: String, taken: Set<String>) -> String {
    guard taken.contains(name) else { return name }
    let dot = name.lastIndex(of: ".").flatMap { $0 == name.startIndex ? nil : $0 }
    let stem = dot.map { String(name[..<$0]) } ?? name
    let suffix = dot.map { String(name[$0...]) } ?? ""
    var number = 1
    while true {
      let candidate = "\(stem) (\(owner)\(number == 1 ? "" : " \(number)"))\(suffix)"
      if !taken.contains(candidate) { return candidate }
      number += 1
    }
  }
}
