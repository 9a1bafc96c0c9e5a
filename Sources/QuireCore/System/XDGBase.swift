import Foundation

/// One of the user's base folders from the XDG Base Directory specification: the variable's
/// value when it is an absolute path (the specification says to ignore a relative one), else its
/// default under the home folder.
package enum XDGBase {
  /// `$XDG_DATA_HOME`, or `~/.local/share`: what must persist.
  case data
  /// `$XDG_CONFIG_HOME`, or `~/.config`: settings.
  case config
  /// `$XDG_STATE_HOME`, or `~/.local/state`: state that persists but is not worth a backup.
  case state
  /// `$XDG_CACHE_HOME`, or `~/.cache`: what can be made again.
  case cache

  /// The folder, as `environment` says.
  package func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    let (variable, relative) =
      switch self {
      case .data: ("XDG_DATA_HOME", ".local/share")
      case .config: ("XDG_CONFIG_HOME", ".config")
      case .state: ("XDG_STATE_HOME", ".local/state")
      case .cache: ("XDG_CACHE_HOME", ".cache")
      }
    if let value = environment[variable], value.hasPrefix("/") {
      return URL(fileURLWithPath: value)
    }
    let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? URL(fileURLWithPath: $0) : nil }
    return (home ?? FileManager.default.homeDirectoryForCurrentUser).appendingPathComponent(
      relative)
  }
}
