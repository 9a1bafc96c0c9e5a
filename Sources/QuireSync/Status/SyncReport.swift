import Foundation
import GRDB
import QuireCore
import QuireSyncProtocol

/// What `quire sync status` shows: the sign-in, the connection, the items not in sync (with
/// their state and error) and the last error, read from the agent's state.
public struct SyncReport: Codable, Sendable {
  /// One item not in sync.
  public struct Item: Codable, Sendable {
    /// Its identity.
    public var item: String
    /// Its path in the folder.
    public var path: String
    /// `uploading`, `downloading` or `error`.
    public var state: SyncItemState
    /// The error, for `error`.
    public var error: String?
  }

  /// The server, or nil when signed out.
  public var server: String?
  /// The account.
  public var user: String?
  /// How the agent last stood with the server (paused, if syncing is paused here).
  public var connection: SyncConnection
  /// Whether syncing is paused on this device (`quire sync pause`).
  public var paused: Bool
  /// Chunk bytes this device has uploaded, since its agent first ran on this folder.
  public var uploadedBytes: Int
  /// Chunk bytes this device has downloaded (those it already held are copied, not counted).
  public var downloadedBytes: Int
  /// Items not in sync.
  public var items: [Item]
  /// The journal cursor reached.
  public var cursor: Int64
  /// The items the server holds (not deleted), as of the cursor.
  public var remoteItems: Int
  /// The last error, if the last attempt failed.
  public var lastError: String?
  /// What this device downloads of the folder's new documents: `all`, `on-demand` or
  /// `on-demand:BYTES` (``DownloadPolicy``).
  public var download: String = "all"
  /// The documents that are in the cloud only on this device (placeholders).
  public var inCloud: Int = 0

  /// The report of the agent whose state is in `stateFile`.
  public static func read(stateFile: URL, settings: SyncSettings?, folder: URL? = nil)
    throws(SyncError) -> SyncReport
  {
    var report = SyncReport(
      server: settings?.server.absoluteString, user: settings?.user, connection: .neverRun,
      paused: SyncSettings.isPaused(), uploadedBytes: 0, downloadedBytes: 0, items: [], cursor: 0,
      remoteItems: 0, lastError: nil)
    if let settings, let folder {
      report.download = settings.downloadPolicy(for: folder).description
    }
    guard (try? Sys.exists(stateFile.path, followLinks: true)) != false else { return report }
    let state = try SyncState(readingOnly: stateFile)
    report.connection = state.connection
    report.cursor = state.cursor
    report.remoteItems = state.remoteItemCount
    report.uploadedBytes = state.value("uploadedBytes").flatMap { Int($0) } ?? 0
    report.downloadedBytes = state.value("downloadedBytes").flatMap { Int($0) } ?? 0
    if report.paused { report.connection = .paused }
    report.lastError = state.value("lastError")
    report.inCloud =
      (try? state.database.read { db in
        guard try db.columns(in: "synced").contains(where: { $0.name == "placeholder" }) else {
          return 0
        }
        return try Int.fetchOne(db, sql: "SELECT count(*) FROM synced WHERE placeholder") ?? 0
      }) ?? 0
    report.items =
      (try? state.database.read { db in
        try Row.fetchAll(db, sql: "SELECT * FROM status ORDER BY path").compactMap { row in
          SyncItemState(rawValue: row["state"]).map {
            Item(item: row["item"], path: row["path"], state: $0, error: row["error"])
          }
        }
      }) ?? []
    return report
  }

  /// A few lines for a person.
  public var summary: String {
    var lines = [
      server.map { "Signed in to \($0) as \(user ?? "?")" }
        ?? "Not signed in (quire sync login URL --user NAME)",
      items.isEmpty
        ? "\(connection.rawValue), up to date"
        : "\(connection.rawValue), \(items.count) not in sync",
    ]
    if download != "all" || inCloud > 0 {
      lines.append("Downloads: \(download), \(inCloud) in the cloud only")
    }
    for item in items {
      lines.append("  \(item.state.rawValue)\t\(item.path)\(item.error.map { "\t\($0)" } ?? "")")
    }
    if let lastError { lines.append("Last error: \(lastError)") }
    return lines.joined(separator: "\n")
  }
}
