import Foundation
import Quire
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
    let environment = ProcessInfo.processInfo.environment
    let base =
      environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
      ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
    return base.appendingPathComponent("quire/sync.json")
  }

  /// The marker whose presence pauses every agent of this user (`quire sync pause`): beside
  /// the settings, `$XDG_CONFIG_HOME/quire/sync.paused`. A running agent notices it at once.
  public static var pauseMarker: URL {
    defaultLocation.deletingLastPathComponent().appendingPathComponent("sync.paused")
  }

  /// Whether syncing is paused (the marker at `marker` exists).
  public static func isPaused(marker: URL = pauseMarker) -> Bool {
    FileManager.default.fileExists(atPath: marker.path)
  }

  /// Pauses or resumes every agent of this user, running or started later.
  public static func setPaused(_ paused: Bool, marker: URL = pauseMarker) throws(SyncError) {
    if paused {
      do {
        try FileManager.default.createDirectory(
          at: marker.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data().write(to: marker)
      } catch {
        throw SyncError(.unavailable, "Could not pause: “\(marker.path)”: \(error).", cause: error)
      }
    } else {
      do { try FileManager.default.removeItem(at: marker) } catch CocoaError.fileNoSuchFile {
      } catch {
        throw SyncError(
          .unavailable, "Could not resume: remove “\(marker.path)”: \(error).", cause: error)
      }
    }
  }

  /// The settings saved at `location`, or nil if this device is not signed in.
  public static func load(from location: URL = defaultLocation) throws(SyncError) -> SyncSettings? {
    guard let data = FileManager.default.contents(atPath: location.path) else { return nil }
    do { return try JSONDecoder().decode(SyncSettings.self, from: data) } catch {
      throw SyncError(
        .malformed,
        "The sync settings in “\(location.path)” are damaged: \(error). Sign in again with quire sync login."
      )
    }
  }

  /// Saves the settings at `location`, readable by the user only.
  public func save(to location: URL = defaultLocation) throws(SyncError) {
    do {
      try FileManager.default.createDirectory(
        at: location.deletingLastPathComponent(), withIntermediateDirectories: true,
        attributes: [.posixPermissions: 0o700])
      let temporary = location.appendingPathExtension("tmp")
      guard
        FileManager.default.createFile(
          atPath: temporary.path, contents: try JSONEncoder().encode(self),
          attributes: [.posixPermissions: 0o600])
      else {
        throw SyncError(.unavailable, "Could not save “\(location.path)”.")
      }
      try Sys.rename(temporary.path, location.path)
    } catch let error as SyncError {
      throw error
    } catch {
      throw SyncError(
        .unavailable, "Could not save the sync settings in “\(location.path)”: \(error).")
    }
  }

  /// Removes the settings (signs this device out).
  public static func remove(at location: URL = defaultLocation) {
    try? FileManager.default.removeItem(at: location)
  }
}
