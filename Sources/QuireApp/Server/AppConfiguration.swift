import Foundation
import QuireCore

/// How a Quire app server runs: which library, where it listens, and the secret every request
/// must carry.
public struct AppConfiguration: Sendable {
  /// The folder of documents the app browses.
  public var library: URL
  /// The loopback address to listen on (only `127.0.0.1` or `::1` make sense: the app trusts
  /// whoever holds the token, and the token travels in clear over HTTP).
  public var host: String
  /// The port (0: any free port; the server reports the one it got).
  public var port: Int
  /// The per-run secret: in the printed URL, then a cookie.
  public var token: String
  /// The largest upload accepted (an image or an archive to import), in bytes.
  public var maxUploadBytes: Int
  /// How long an edited document waits before it saves itself.
  public var autosaveDelay: Duration
  /// The command that syncs the library with a Quire Sync server (`quire sync run --folder
  /// LIBRARY`), started when the user signs in from the page; nil: signing in only saves the
  /// settings, and the agent is started otherwise (a systemd unit, a terminal).
  public var syncAgentCommand: [String]?

  /// A configuration with a fresh random token.
  public init(
    library: URL, host: String = "127.0.0.1", port: Int = 8610,
    token: String = AppConfiguration.randomToken(), maxUploadBytes: Int = 256 << 20,
    autosaveDelay: Duration = .seconds(2)
  ) {
    self.library = library.standardizedFileURL
    self.host = host
    self.port = port
    self.token = token
    self.maxUploadBytes = maxUploadBytes
    self.autosaveDelay = autosaveDelay
  }

  /// 32 random bytes as hex.
  public static func randomToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator))
    }
    .joined()
  }

  /// The default library: `$XDG_DATA_HOME/quire/Library` (or `~/.local/share/quire/Library`).
  public static var defaultLibrary: URL {
    XDGBase.data.folder().appendingPathComponent("quire/Library")
  }
}
