import Foundation
import GRDB
import Quire
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
  private let database = Mutex<DatabaseQueue?>(nil)

  /// The source for `folder`, whose agent records in `stateFile`.
  public init(
    folder: URL, stateFile: URL? = nil, settingsFile: URL = SyncSettings.defaultLocation
  ) {
    self.folder = folder.standardizedFileURL
    self.stateFile = stateFile ?? SyncAgent.defaultStateFile(for: folder)
    self.settingsFile = settingsFile
  }

  /// The status of every item the agent knows, by relative path; nil when signed out.
  public func statuses() async -> [String: UbiquityStatus]? {
    guard FileManager.default.fileExists(atPath: settingsFile.path) else { return nil }
    guard let database = open() else { return [:] }
    return try? await database.read { db -> [String: UbiquityStatus] in
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
        switch row["state"] as String {
        case "uploading": result[path] = UbiquityStatus(isUploaded: false, isUploading: true)
        case "waiting": result[path] = .waitingToUpload
        case "error": result[path] = UbiquityStatus(isUploaded: false, uploadingError: error)
        case "downloading":
          var status = UbiquityStatus(isDownloading: true, downloadingStatus: here)
          if let done = row["done"] as Int64?, let total = row["total"] as Int64?, total > 0 {
            status.percentDownloaded = min(100, Double(done) * 100 / Double(total))
          }
          result[path] = status
        case "downloadError":
          result[path] = UbiquityStatus(downloadingStatus: here, downloadingError: error)
        default: continue
        }
      }
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
  }

  /// Yields when the agent's state or the sign-in changed (bursts coalesce into one).
  public func changes() -> AsyncStream<Void> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let watched = [
      (stateFile.deletingLastPathComponent(), stateFile.lastPathComponent),
      (settingsFile.deletingLastPathComponent(), settingsFile.lastPathComponent),
    ]
    let tasks = watched.map { folder, name in
      try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      return Task {
        let monitor = FileMonitor(
          watching: folder, recursive: false, coalescingInterval: .milliseconds(5))
        do {
          for try await event in monitor
          where event.url.lastPathComponent.hasPrefix(name) {
            continuation.yield()
          }
        } catch {
          continuation.yield()  // the watch failed: one last look
        }
      }
    }
    continuation.onTermination = { _ in for task in tasks { task.cancel() } }
    return stream
  }

  /// The agent's state, opened read-only once it exists.
  private func open() -> DatabaseQueue? {
    database.withLock { database in
      if let database { return database }
      guard FileManager.default.fileExists(atPath: stateFile.path) else { return nil }
      var configuration = Configuration()
      configuration.readonly = true
      configuration.busyMode = .timeout(10)
      database = try? DatabaseQueue(path: stateFile.path, configuration: configuration)
      return database
    }
  }
}
