import Foundation

/// The user's base directories from the XDG Base Directory specification, with its defaults.
enum XDGDirectory {
  /// `$XDG_DATA_HOME/quire`, or `~/.local/share/quire`: state that must persist.
  static var data: URL {
    XDGBase.data.folder().appendingPathComponent("quire")
  }

  /// `$XDG_CACHE_HOME/quire`, or `~/.cache/quire`: what can be made again.
  static var cache: URL {
    XDGBase.cache.folder().appendingPathComponent("quire")
  }
}
