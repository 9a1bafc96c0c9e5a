import Foundation
import QuireServer
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// The server side of `server-load`: a data folder (and PostgreSQL database, when given) holding
/// the accounts and devices, `quire server` replicas serving it, and Debian's nginx in front of
/// them when there are several — configured as a deployment would be (no response buffering, so
/// event streams pass through at once).
final class ServerLoadRig {
  /// Where devices connect: the one replica, or nginx.
  let url: URL
  /// The replicas' process identifiers.
  let replicas: [Int32]
  private let processes: [Process]
  private let root: URL

  /// Each device's account name and token, in device order; `perAccount` devices per account.
  let devices: [(account: String, token: String)]

  init(scratch: URL, devices count: Int, perAccount: Int, replicas: Int, database: URL?) throws {
    root = scratch
    let data = scratch.appendingPathComponent("server")
    let store = try ServerStore(folder: data, postgres: database)
    let accounts = (count + perAccount - 1) / perAccount
    // The accounts' bcrypt hashes are the slow part of setting up: two at a time.
    let failures = LockedList<String>()
    DispatchQueue.concurrentPerform(iterations: accounts) { index in
      do {
        try store.accounts.addUser(name: "load\(index)", password: "load-password-\(index)")
      } catch { failures.append("\(error)") }
    }
    if let failure = failures.values.first { throw RawFiles.Failure(description: failure) }
    devices = try (0..<count).map { index in
      let account = "load\(index / perAccount)"
      return (account, try store.accounts.addDevice(user: account, name: "device-\(index)").token)
    }
    let quire = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
      .deletingLastPathComponent().appendingPathComponent("quire")
    var ports: [Int] = []
    var started: [Process] = []
    do {
      for _ in 0..<replicas {
        let process = Process()
        process.executableURL = quire
        process.arguments =
          ["server", "--data", data.path, "--port", "0"]
          + (database.map { ["--database", $0.absoluteString] } ?? [])
        process.standardError = FileHandle.nullDevice
        started.append(process)
        let line = try Self.start(process, until: "Quire server listening on ")
        ports.append(URL(string: String(line.dropFirst("Quire server listening on ".count)))!.port!)
      }
      if replicas == 1 {
        url = URL(string: "http://127.0.0.1:\(ports[0])")!
      } else {
        let port = try Self.startNginx(
          in: scratch.appendingPathComponent("nginx"), upstreams: ports)
        url = URL(string: "http://127.0.0.1:\(port)")!
      }
    } catch {
      Self.end(started)  // a rig that failed to start leaves no replica running
      throw error
    }
    processes = started
    self.replicas = started.map(\.processIdentifier)
  }

  /// The largest peak resident set of any replica, in MiB.
  var peakReplicaMiB: Double {
    replicas.map { Measurement.peakMemoryMiB(of: $0) }.max() ?? .nan
  }

  func stop() {
    let pidFile = root.appendingPathComponent("nginx/nginx.pid")
    if let text = try? String(contentsOf: pidFile, encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    {
      kill(pid, SIGTERM)
    }
    Self.end(processes)
  }

  /// Kills the replicas `processes` and waits for them.
  private static func end(_ processes: [Process]) {
    for process in processes where process.isRunning {
      // SIGKILL: a process spawned from Swift concurrency starts with SIGTERM blocked.
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }
  }

  /// Runs `process` until a line of its standard output starts with `prefix`; returns the line.
  private static func start(_ process: Process, until prefix: String) throws -> String {
    let stdout = Pipe()
    process.standardOutput = stdout
    try process.run()
    var buffer = Data()
    while true {
      let chunk = stdout.fileHandleForReading.availableData
      guard !chunk.isEmpty else {
        throw RawFiles.Failure(description: "\(process.executableURL!.path) exited")
      }
      buffer.append(chunk)
      if let line = String(decoding: buffer, as: UTF8.self).split(separator: "\n")
        .first(where: { $0.hasPrefix(prefix) })
      {
        return String(line)
      }
    }
  }

  /// Starts nginx as a round-robin balancer over `upstreams`; returns its port.
  private static func startNginx(in folder: URL, upstreams: [Int]) throws -> Int {
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
      throw RawFiles.Failure(description: "nginx is not installed (apt-get install nginx)")
    }
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let port = try freePort()
    let servers = upstreams.map { "    server 127.0.0.1:\($0);" }.joined(separator: "\n")
    let configuration = """
      \(getuid() == 0 ? "user root;" : "")
      worker_processes 1;
      worker_rlimit_nofile 20000;
      pid \(folder.path)/nginx.pid;
      error_log \(folder.path)/error.log;
      events { worker_connections 16384; }
      http {
        access_log off;
        client_body_temp_path \(folder.path)/body;
        proxy_temp_path \(folder.path)/proxy;
        upstream quire {
      \(servers)
          keepalive 64;
        }
        server {
          listen 127.0.0.1:\(port);
          location / {
            proxy_pass http://quire;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_buffering off;
            proxy_request_buffering off;
            proxy_read_timeout 1h;
          }
        }
      }
      """
    let file = folder.appendingPathComponent("nginx.conf")
    try Data(configuration.utf8).write(to: file)
    let nginx = Process()
    nginx.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
    nginx.arguments = ["-c", file.path, "-p", folder.path]  // daemonizes; stopped by its pid file
    try nginx.run()
    // Not waitUntilExit: called from the main actor it never heard the daemonizing parent exit
    // (the bench hung there). nginx is up once it has written its pid and accepts connections.
    let ready = SyncRig.waitFor(seconds: 30, every: .milliseconds(20)) {
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("nginx.pid").path)
        && LoopbackProbe.accepts(port)
    }
    guard ready else {
      throw RawFiles.Failure(description: "nginx did not start; see \(folder.path)/error.log")
    }
    return port
  }

  /// A loopback port nothing listens on now.
  private static func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard bound else { throw RawFiles.Failure(description: "no free loopback port") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// A list appended to from several threads.
final class LockedList<Element>: @unchecked Sendable {
  private let lock = NSLock()
  private var items: [Element] = []

  func append(_ item: Element) { lock.withLock { items.append(item) } }
  var values: [Element] { lock.withLock { items } }
}
