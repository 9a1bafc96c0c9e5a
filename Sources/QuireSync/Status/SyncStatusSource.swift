import Foundation
import QuireCore
import GRDB
import Quire
import QuireSyncProtocol
import Synchronization

/// The Quire Sync agent's view of a folder, for ``Quire/DocumentQuery``: each item's
/// ``Quire/UbiquityStatus`` (uploaded, uploading, downloading, its error, its conflicts), read
/// from the state the agent records, and updated as the agent records more.
///
/// ```swift
/// let query = DocumentQuery(scopes: [library], ubiquity: SyncStatusSource(folder: library))
/// ```
///
/// The agent is its own process: the source reads its SQLite state read-only, and hears it
/// change through the file monitor on the state's folder. Signed out (no `sync.json`), the
/// folder is not synced and its items are local.
public final class SyncStatusSource: UbiquityStatusSource {
  /// The synced folder.
  public let folder: URL
  /// The agent's state for ``folder``.
  public let stateFile: URL
  /// The device's sign-in.
  public let settingsFile: URL
  private let databases = Mutex<[String: DatabaseQueue]>([:])

  /// The source for `folder`, whose agent records in `stateFile`.
  public init(
    folder: URL, stateFile: URL? = nil, settingsFile: URL = SyncSettings.defaultLocation
  ) {
    self.folder = folder.standardizedFileURL
    self.stateFile = stateFile ?? SyncAgent.defaultStateFile(for: folder)
    self.settingsFile = settingsFile
  }

  /// The status of every item the agent knows, by relative path; nil when signed out. The
  /// items other accounts share with this one (``SyncAgent/sharedFolderName``) are read from
  /// their agents' states, and carry their ``Quire/UbiquitySharing`` as participant; this
  /// account's items that it shares carry theirs as owner.
  public func statuses() async -> [String: UbiquityStatus]? {
    guard (try? Sys.exists(settingsFile.path, followLinks: true)) == true else { return nil }
    var result: [String: UbiquityStatus] = [:]
    if let database = stateDatabase(stateFile) {
      result = (try? await database.read { db in try Self.statuses(db, owner: true) }) ?? [:]
    }
    for file in SyncAgent.shareStateFiles(of: stateFile) {
      guard let database = stateDatabase(file),
        let (root, shared) = try? await database.read({ db in
          let root = try String.fetchOne(
            db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [SyncAgent.shareRootKey])
          return (root, try Self.statuses(db, owner: false))
        })
      else { continue }
      // In "Shared with me", or wherever the participant moved a shared document.
      let prefix = root.map { $0.isEmpty ? "" : $0 + "/" } ?? SyncAgent.sharedFolderName + "/"
      for (path, status) in shared {
        result[prefix + path] = status
      }
    }
    return result
  }

  /// The statuses in one agent's state: its items, their sync and conflicts, and how they are
  /// shared (as `owner` of its own items, or as the participant of the share it syncs).
  private static func statuses(_ db: Database, owner: Bool) throws -> [String: UbiquityStatus] {
    // The connection is kept, and GRDB does not see another connection change the schema: one
    // first used while the agent still migrated its state kept `remote` without `conflicts`
    // and never showed a conflict. The columns are looked up afresh on every read.
    db.clearSchemaCache()
    var result: [String: UbiquityStatus] = [:]
    var synced = try String.fetchSet(db, sql: "SELECT path FROM synced")
    result.reserveCapacity(synced.count)
    for path in synced { result[path] = .current }
    if try db.columns(in: "synced").contains(where: { $0.name == "placeholder" }) {
      // In the cloud only: known by name, not downloaded.
      for path in try String.fetchAll(db, sql: "SELECT path FROM synced WHERE placeholder") {
        result[path] = UbiquityStatus(downloadingStatus: .notDownloaded)
        synced.remove(path)
      }
    }
    for row in try Row.fetchAll(db, sql: "SELECT * FROM status") {
      let path: String = row["path"]
      let error = UbiquityError(
        code: row["code"] ?? "failed", message: row["error"] ?? "The sync of “\(path)” failed.")
      let here: DocumentQuery.DownloadingStatus =
        synced.contains(path) ? .downloaded : .notDownloaded
      switch SyncItemState(rawValue: row["state"]) {
      case .uploading?: result[path] = UbiquityStatus(isUploaded: false, isUploading: true)
      case .waiting?: result[path] = .waitingToUpload
      case .error?: result[path] = UbiquityStatus(isUploaded: false, uploadingError: error)
      case .downloading?:
        var status = UbiquityStatus(isDownloading: true, downloadingStatus: here)
        if let done = row["done"] as Int64?, let total = row["total"] as Int64?, total > 0 {
          status.percentDownloaded = min(100, Double(done) * 100 / Double(total))
        }
        result[path] = status
      case .downloadError?:
        result[path] = UbiquityStatus(downloadingStatus: here, downloadingError: error)
      case .notDownloaded?, .current?, nil: continue  // not recorded, or by a newer agent
      }
    }
    try markSharing(db, owner: owner, in: &result)
    // The server kept conflict revisions of the item that no one has resolved yet.
    guard try db.columns(in: "remote").contains(where: { $0.name == "conflicts" }) else {
      return result  // an agent that has not yet upgraded its state
    }
    let conflicted = try String.fetchAll(
      db,
      sql: """
        SELECT synced.path FROM remote JOIN synced USING (item)
        WHERE remote.conflicts IS NOT NULL
        """)
    for path in conflicted {
      result[path, default: .current].hasUnresolvedConflicts = true
    }
    return result
  }

  /// Sets the sharing of the items the agent recorded as shared: the share it syncs (meta
  /// `share`, a ``QuireSyncProtocol/ShareInfo``), or the drive's items shared with others (meta
  /// `ownedShares`, their identities).
  private static func markSharing(
    _ db: Database, owner: Bool, in result: inout [String: UbiquityStatus]
  ) throws {
    let key = owner ? "ownedShares" : "share"
    guard
      let json = try String.fetchOne(
        db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    else { return }
    let sharing: UbiquitySharing
    let items: [String]
    var folders: [String] = []
    if owner {
      let shared = (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
      items = shared.filter { !$0.contains("/") }
      folders = shared.filter { $0.contains("/") }
      sharing = UbiquitySharing(role: .owner, permissions: .readWrite)
    } else {
      guard let share = try? JSONDecoder().decode(ShareInfo.self, from: Data(json.utf8)) else {
        return
      }
      items = share.isFolder ? [] : [share.item]
      folders = share.isFolder ? [share.name + "/"] : []
      sharing = UbiquitySharing(
        role: .participant, permissions: share.role == .write ? .readWrite : .readOnly,
        owner: share.owner)
    }
    var paths: [String] = []
    if !items.isEmpty {
      let marks = databaseQuestionMarks(count: items.count)
      paths += try String.fetchAll(
        db, sql: "SELECT path FROM synced WHERE item IN (\(marks))",
        arguments: StatementArguments(items))
    }
    for folder in folders {
      paths += try String.fetchAll(
        db, sql: "SELECT path FROM synced WHERE substr(path, 1, length(?)) = ?",
        arguments: [folder, folder])
    }
    for path in paths {
      result[path, default: .current].sharing = sharing
    }
  }

  /// Yields when the agent's state or the sign-in changed (bursts coalesce into one).
  public func changes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let watched = [
      // The drive's state, and its shares' (`{name}-share-{id}.sqlite`).
      (stateFile.deletingLastPathComponent(), stateFile.deletingPathExtension().lastPathComponent),
      (settingsFile.deletingLastPathComponent(), settingsFile.lastPathComponent),
    ]
    let tasks = watched.map { folder, name in
      try? Sys.makeFolders(folder.path)
      // The watch is made here, before the caller reads the statuses, not in the task: a task
      // that started late (a loaded machine) missed the agent's records in between, and the
      // caller showed an upload that had long finished.
      var events = FileMonitor(
        watching: folder, recursive: false, coalescingInterval: .milliseconds(5)
      ).makeAsyncIterator()
      return Task {
        do {
          while let event = try await events.next() {
            if event.url.lastPathComponent.hasPrefix(name) { continuation.yield() }
          }
        } catch {
          continuation.yield()  // the watch failed: one last look
        }
      }
    }
    continuation.onTermination = { _ in for task in tasks { task.cancel() } }
    return stream
  }

  /// An agent's state, opened read-only through SQLite (as the agent's own ``SyncState`` is)
  /// once it exists, and kept open while it does.
  private func stateDatabase(_ file: URL) -> DatabaseQueue? {
    databases.withLock { databases in
      guard (try? Sys.exists(file.path, followLinks: true)) == true else {
        databases[file.path] = nil
        return nil
      }
      if let database = databases[file.path] { return database }
      var configuration = Configuration()
      configuration.readonly = true
      configuration.busyMode = .timeout(10)
      let database = try? DatabaseQueue(path: file.path, configuration: configuration)
      databases[file.path] = database
      return database
    }
  }
}
