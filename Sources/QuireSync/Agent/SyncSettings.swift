import Foundation
import Quire
import QuireCore
import QuireSyncProtocol

/// A device's sign-in to a Quire Sync server, kept in `$XDG_CONFIG_HOME/quire/sync.json` with
/// mode 0600 (it holds the device token).
public struct SyncSettings: Codable, Sendable, Equatable {
  /// The server's address.
  public var server: URL
  /// The account name.
  public var user: String
  /// This device's identifier on the server.
  public var device: String
  /// The device token.
  public var token: String
  /// The container synced, such as `iCloud.net.gacha.quire`.
  public var container: String
  /// A PEM certificate to trust for the server's HTTPS besides the system's (a self-signed
  /// server's own certificate, or a private certificate authority's); nil trusts the system's.
  public var certificateAuthority: String?
  /// Each synced folder's download policy (``DownloadPolicy``'s text), by the folder's path;
  /// a folder not named downloads everything. A running agent follows a change at once.
  public var downloads: [String: String]?

  /// Settings for a signed-in device.
  public init(
    server: URL, user: String, device: String, token: String, container: String,
    certificateAuthority: String? = nil
  ) {
    self.certificateAuthority = certificateAuthority
    self.server = server
    self.user = user
    self.device = device
    self.token = token
    self.container = container
  }

  /// What the agent of `folder` downloads.
  public func downloadPolicy(for folder: URL) -> DownloadPolicy {
    downloads?[folder.standardizedFileURL.path].flatMap { try? DownloadPolicy(parsing: $0) }
      ?? .all
  }

  /// Sets what the agent of `folder` downloads (save the settings to apply it).
  public mutating func setDownloadPolicy(_ policy: DownloadPolicy, for folder: URL) {
    var all = downloads ?? [:]
    all[folder.standardizedFileURL.path] = policy == .all ? nil : policy.description
    downloads = all.isEmpty ? nil : all
  }

  /// `$XDG_CONFIG_HOME/quire/sync.json` (or `~/.config/quire/sync.json`).
  public static var defaultLocation: URL {
    XDGBase.config.folder().appendingPathComponent("quire/sync.json")
  }

  /// The marker whose presence pauses every agent of this user (`quire sync pause`): beside
  /// the settings, `$XDG_CONFIG_HOME/quire/sync.paused`. A running agent notices it at once.
  public static var pauseMarker: URL {
    defaultLocation.deletingLastPathComponent().appendingPathComponent("sync.paused")
  }

  /// Whether syncing is paused (the marker at `marker` exists).
  public static func isPaused(marker: URL = pauseMarker) -> Bool {
    (try? Sys.exists(marker.path, followLinks: true)) == true
  }

  /// Pauses or resumes every agent of this user, running or started later.
  public static func setPaused(_ paused: Bool, marker: URL = pauseMarker) throws(SyncError) {
    if paused {
      do {
        try Sys.makeFolders(marker.deletingLastPathComponent().path, mode: 0o700)
        Sys.close(try Sys.open(marker.path, O_WRONLY | O_CREAT, mode: 0o600))
      } catch {
        throw SyncError(
          .unavailable, "Could not pause: “\(marker.path)”: \(error.reason).", cause: error)
      }
    } else {
      do { try Sys.unlink(marker.path) } catch {
        guard error.errno != ENOENT else { return }
        throw SyncError(
          .unavailable, "Could not resume: remove “\(marker.path)”: \(error.reason).",
          cause: error)
      }
    }
  }

  /// The settings saved at `location`, or nil if this device is not signed in.
  public static func load(from location: URL = defaultLocation) throws(SyncError) -> SyncSettings? {
    let contents: Data?
    do { contents = try Sys.contents(of: location.path) } catch {
      throw SyncError(
        .unavailable,
        "Could not read the sync settings in “\(location.path)”: \(error.reason). Check its permissions.",
        cause: error)
    }
    guard let data = contents else { return nil }
    do { return try JSONDecoder().decode(SyncSettings.self, from: data) } catch {
      throw SyncError(
        .malformed,
        "The sync settings in “\(location.path)” are damaged: \(error). Sign in again with quire sync login."
      )
    }
  }

  /// Saves the settings at `location`, readable by the user only: a crash at any moment leaves
  /// the old settings or the new ones, whole, never an empty file.
  public func save(to location: URL = defaultLocation) throws(SyncError) {
    let data: Data
    do { data = try JSONEncoder().encode(self) } catch {
      throw SyncError(.malformed, "Could not encode the sync settings: \(error).", cause: error)
    }
    do {
      try Sys.makeFolders(location.deletingLastPathComponent().path, mode: 0o700)
      try Sys.replaceDurably(location.path, with: data, mode: 0o600)
    } catch {
      throw SyncError(
        .unavailable,
        "Could not save the sync settings in “\(location.path)”: \(error.reason). Check the free space and the folder's permissions.",
        cause: error)
    }
  }

  /// Removes the settings (signs this device out).
  public static func remove(at location: URL = defaultLocation) {
    try? Sys.unlink(location.path)
  }
}
