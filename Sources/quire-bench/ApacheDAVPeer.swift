import Foundation
import QuireServer

#if canImport(Glibc)
  import Glibc
#endif

/// Apache's mod_dav (Debian's `apache2`) as the WebDAV peer: one `apache2 -DFOREGROUND` child
/// with a minimal configuration of its own in a scratch folder — the event MPM, `mod_dav_fs`
/// serving a folder at `/dav/`, HTTP Basic sign-in from an htpasswd file, the lock database and
/// logs beside them. Run as root, Apache's workers run as `www-data`, which then owns the folder.
final class ApacheDAVPeer {
  /// The address of the served folder, `http://127.0.0.1:PORT/dav/`.
  let url: URL
  /// The account name of the Basic sign-in.
  let user = "alice"
  /// Its password (in the htpasswd file).
  let password = "apache-bench-password"
  /// The folder served at `/dav/`.
  let folder: URL
  /// The `apache2` parent process.
  private let process: SpawnedProcess

  /// Whether Apache and its htpasswd tool are installed (scripts/bench installs them).
  static var isInstalled: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/sbin/apache2")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/htpasswd")
  }

  /// Configures and starts Apache in `root` (made if missing); returns once it accepts
  /// connections.
  init(root: URL) throws {
    guard Self.isInstalled else {
      throw RawFiles.Failure(
        description: "Apache is not installed (apt-get install apache2 apache2-utils)")
    }
    folder = root.appendingPathComponent("root/dav")
    let locks = root.appendingPathComponent("lock")
    for made in [folder, locks] {
      try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
    }
    let passwords = root.appendingPathComponent("htpasswd")
    // -s: {SHA} entries, the cheapest check Apache makes per request.
    try SpawnedProcess.run("/usr/bin/htpasswd", ["-b", "-c", "-s", passwords.path, user, password])
    var account = ""
    if getuid() == 0 {
      // Apache will not serve as root: its workers take www-data's identity, so that user
      // owns what they write.
      guard let entry = getpwnam("www-data") else {
        throw RawFiles.Failure(description: "no www-data user for Apache's workers")
      }
      for owned in [folder, locks, passwords] {
        try RawFiles.check(chown(owned.path, entry.pointee.pw_uid, entry.pointee.pw_gid), "chown")
      }
      account = "User www-data\nGroup www-data"
    }
    let port = SyncthingPeer.freePort()
    let modules = "/usr/lib/apache2/modules"
    let loaded = [
      "mpm_event", "authn_core", "authn_file", "auth_basic", "authz_core", "authz_user", "mime",
      "dav", "dav_fs",
    ].map { "LoadModule \($0)_module \(modules)/mod_\($0).so" }.joined(separator: "\n")
    let types = FileManager.default.fileExists(atPath: "/etc/mime.types")
    let configuration = """
      ServerRoot "\(root.path)"
      ServerName 127.0.0.1
      Listen 127.0.0.1:\(port)
      PidFile "\(root.path)/httpd.pid"
      DefaultRuntimeDir "\(root.path)"
      ErrorLog "\(root.path)/error.log"
      LogLevel warn
      \(loaded)
      \(account)
      \(types ? "TypesConfig /etc/mime.types" : "")
      DavLockDB "\(locks.path)/DavLock"
      DocumentRoot "\(root.path)/root"
      <Directory "\(folder.path)">
        Dav On
        AuthType Basic
        AuthName "quire-bench"
        AuthBasicProvider file
        AuthUserFile "\(passwords.path)"
        Require valid-user
      </Directory>
      """
    let file = root.appendingPathComponent("httpd.conf")
    try Data(configuration.utf8).write(to: file)
    process = try SpawnedProcess(
      "/usr/sbin/apache2", ["-f", file.path, "-DFOREGROUND"],
      output: root.appendingPathComponent("apache2.out"))
    url = URL(string: "http://127.0.0.1:\(port)/dav/")!
    let process = process
    let up = SyncRig.waitFor(seconds: 30, every: .milliseconds(20)) {
      !process.isRunning || LoopbackProbe.accepts(port)
    }
    guard up, process.isRunning else {
      process.stop()
      let log = (try? String(contentsOf: root.appendingPathComponent("error.log"), encoding: .utf8))
      throw RawFiles.Failure(
        description: "apache2 did not start: \(process.text)\(log ?? "")")
    }
  }

  /// Stops Apache and its workers (SIGTERM to the parent).
  func stop() { process.stop() }
}
