import CQuireShims
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Where the processes of one user meet to coordinate: `$XDG_RUNTIME_DIR/quire`, or
/// `/tmp/quire-UID` without it. It holds the lock file, one socket per process that presents
/// items, and one registration (a symbolic link to the presented path) per presenter.
enum CoordinationRuntime {
  static let directory: String = {
    let environment = ProcessInfo.processInfo.environment
    if let base = environment["XDG_RUNTIME_DIR"], base.hasPrefix("/") { return base + "/quire" }
    return "/tmp/quire-\(getuid())"
  }()

  static var lockFile: String { directory + "/coordination.lock" }
  static var presenters: String { directory + "/presenters" }

  /// The socket of the process `owner` (`PID-TOKEN`).
  static func socket(of owner: String) -> String { directory + "/s-" + owner }

  /// Creates the folders (mode 0700) once per process; refuses a folder another user owns.
  static func prepare() throws(QuireError) {
    try prepared.get()
  }

  private static let prepared: Result<Void, QuireError> = {
    for path in [directory, presenters, presenters + "/at", presenters + "/below"] {
      if mkdir(path, 0o700) != 0 && cquire_errno() != EEXIST {
        return .failure(
          .system(
            SystemCallError(call: "mkdir", errno: cquire_errno()), action: "create", path: path))
      }
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid()
      else {
        return .failure(
          QuireError(
            .permissionDenied,
            "The coordination folder “\(path)” is not a folder of this user; remove it or set XDG_RUNTIME_DIR.",
            path: path))
      }
    }
    return .success(())
  }()

  /// Canonical path of `url` for locking and matching presenters: absolute, with `.`/`..`
  /// removed and the parent folder's symbolic links resolved (the last component is kept).
  static func canonicalPath(_ url: URL, resolvingLastLink: Bool = false) -> String {
    var path = url.standardizedFileURL.path
    if resolvingLastLink, let resolved = realpath(path, nil) {
      defer { free(resolved) }
      return String(cString: resolved)
    }
    while path.utf8.count > 1 && path.utf8.last == UInt8(ascii: "/") { path.removeLast() }
    guard let (parent, name) = split(path) else { return path }
    if let resolved = realpath(parent, nil) {
      let base = String(cString: resolved)
      free(resolved)
      path = base == "/" ? "/" + name : base + "/" + name
    }
    return path
  }

  /// The parent folder and last component of the absolute path `path` (no trailing slash), by
  /// its bytes: Foundation's `NSString` path methods cost more than the rest of an uncontended
  /// coordinated access. `nil` for `/` and relative paths.
  static func split(_ path: String) -> (parent: String, name: String)? {
    let bytes = path.utf8
    guard bytes.count > 1, bytes.first == UInt8(ascii: "/"),
      let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
    else { return nil }
    let parent = slash == bytes.startIndex ? "/" : String(path[..<slash])
    return (parent, String(path[bytes.index(after: slash)...]))
  }
}

extension CoordinationRuntime {
  /// The names in `folder`, read with plain system calls: coordination bookkeeping stays out of
  /// the injectable ``Sys`` layer, so fault-injection tests of saves see only the save's calls.
  static func names(in folder: String) -> [String] {
    guard let directory = opendir(folder) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
      let name = String(cString: cquire_dirent_name(entry))
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// The target of the symbolic link at `path`.
  static func linkTarget(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let count = readlink(path, &buffer, buffer.count - 1)
    guard count > 0 else { return nil }
    return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
