import Foundation
import QuireServer

#if canImport(Glibc)
  import Glibc
#endif

/// Debian's nginx (`scripts/test` installs it) as a round-robin load balancer on a free loopback
/// port in front of server replicas, configured as a deployment would be for Quire: no response
/// buffering (event streams pass through at once), long reads, a failed replica skipped.
///
/// It ends when this value does, or with the test process however that ends (a watchdog shell
/// stops it when its standard input closes).
final class NginxBalancer {
  let port: Int
  private let folder: TemporaryDirectory
  private let keepAlive: Pipe

  /// The address devices use.
  var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

  init(upstreams: [Int]) throws {
    guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
      throw Failure("nginx is not installed: run scripts/test, which installs Debian's nginx")
    }
    folder = try TemporaryDirectory()
    port = try Network.freePorts(1)[0]
    let servers = upstreams.map { "    server 127.0.0.1:\($0) max_fails=1 fail_timeout=5s;" }
    let configuration = """
      \(getuid() == 0 ? "user root;" : "")
      worker_processes 1;
      pid \(folder.path)/nginx.pid;
      error_log \(folder.path)/error.log;
      events { worker_connections 4096; }
      http {
        access_log off;
        client_body_temp_path \(folder.path)/body;
        proxy_temp_path \(folder.path)/proxy;
        client_max_body_size 64m;
        upstream quire {
      \(servers.joined(separator: "\n"))
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
            proxy_connect_timeout 2s;
            proxy_next_upstream error timeout;
          }
        }
      }
      """
    let file = folder.url.appendingPathComponent("nginx.conf")
    try Data(configuration.utf8).write(to: file)
    (keepAlive, _) = try Watchdog.start(
      "/usr/sbin/nginx -c '\(file.path)' -p '\(folder.path)' -g 'daemon off;' >/dev/null 2>&1",
      stop: "kill -TERM $w")
    let deadline = ContinuousClock.now + .seconds(20)
    while !LoopbackProbe.accepts(port) {
      guard ContinuousClock.now < deadline else {
        let log =
          (try? String(
            contentsOf: folder.url.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        throw Failure("nginx did not start within 20 s: \(log.suffix(2000))")
      }
      Thread.sleep(forTimeInterval: 0.05)  // polling interval of a bounded wait
    }
  }

  deinit { try? keepAlive.fileHandleForWriting.close() }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
