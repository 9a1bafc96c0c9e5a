import Foundation
import QuireCore

/// The systemd user unit that runs `quire sync run` in the background, as iCloud Drive's daemon
/// runs on a Mac: `quire install-desktop` writes it to
/// `$XDG_CONFIG_HOME/systemd/user/quire-sync.service`; `systemctl --user enable --now
/// quire-sync` starts it now and at every login. It restarts after a failure (the agent resumes
/// from its state), and SIGTERM — what `systemctl stop` sends — finishes or safely abandons the
/// transfer in flight.
enum SyncServiceUnit {
  static var url: URL {
    XDGBase.config.folder().appendingPathComponent("systemd/user/quire-sync.service")
  }

  static func text(executable: String) -> String {
    """
    [Unit]
    Description=Quire Sync agent: keeps the Quire library and the sync server the same
    After=network-online.target
    Wants=network-online.target

    [Service]
    Type=simple
    ExecStart="\(executable)" sync run
    Restart=on-failure
    RestartSec=5
    TimeoutStopSec=15

    [Install]
    WantedBy=default.target

    """
  }

  /// Writes the unit; returns where.
  static func install(executable: String) throws -> URL {
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text(executable: executable).utf8).write(to: url, options: .atomic)
    reloadSystemd()
    return url
  }

  /// Removes the unit; returns it if it was there.
  static func uninstall() -> URL? {
    guard (try? FileManager.default.removeItem(at: url)) != nil else { return nil }
    reloadSystemd()
    return url
  }

  /// Tells a running systemd user manager about the change; nothing to do without one.
  private static func reloadSystemd() {
    guard FileManager.default.isExecutableFile(atPath: "/usr/bin/systemctl"),
      ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] != nil
    else { return }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/systemctl")
    process.arguments = ["--user", "daemon-reload"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try? process.run()
    process.waitUntilExit()
  }
}
