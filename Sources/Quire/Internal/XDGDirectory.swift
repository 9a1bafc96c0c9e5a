import Foundation

/// The user's base directories from the XDG Base Directory specification, with its defaults.
enum XDGDirectory {
  /// `$XDG_DATA_HOME/quire`, or `~/.local/share/quire`: state that must persist.
  static var data: URL {
    base("XDG_DATA_HOME", default: ".local/share").appendingPathComponent("quire")
  }

  /// `$XDG_CACHE_HOME/quire`, or `~/.cache/quire`: what can be made again.
  static var cache: URL {
    base("XDG_CACHE_HOME", default: ".cache").appendingPathComponent("quire")
  }

  private static func base(_ variable: String, default relative: String) -> URL {
    if let value = ProcessInfo.processInfo.environment[variable], value.hasPrefix("/") {
      return URL(fileURLWithPath: value)
    }
    return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(relative)
  }
}
