import AsyncHTTPClient
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The hostile side of `server-abuse`, on loopback only: connections that never send a request,
/// slowloris connections that send a request's head, or a request's body, one byte at a time and
/// never finish it, and
/// one device token that keeps reopening event streams as fast as the server ends them.
final class AbusiveClients: Sendable {
  private let port: UInt16
  private let sockets = Mutex<[Int32]>([])
  private let slow = Mutex<[Int32]>([])
  private let reopened = Atomic<Int>(0)

  init(port: Int) { self.port = UInt16(port) }

  /// How many streams the abusive token opened in all.
  var streamsOpened: Int { reopened.load(ordering: .relaxed) }

  /// Opens `idle` connections that send nothing and `slowloris` that begin a request: half of
  /// them its head, half a whole head and then a body that never ends.
  func connect(idle: Int, slowloris: Int) throws {
    for index in 0..<(idle + slowloris) {
      let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      guard fd >= 0 else { throw RawFiles.Failure(description: "socket: errno \(errno)") }
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_port = port.bigEndian
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        Glibc.close(fd)
        throw RawFiles.Failure(description: "connect: errno \(errno)")
      }
      sockets.withLock { $0.append(fd) }
      if index >= idle {
        let head =
          index % 2 == 0
          ? "GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          : "POST /v1/sign-in HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n"
        _ = head.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        slow.withLock { $0.append(fd) }
      }
    }
  }

  /// Sends one more header byte on every slowloris connection every `every`, until cancelled,
  /// as a slowloris client does to outlast timeouts that count bytes.
  func trickle(every: Duration) async {
    while !Task.isCancelled {
      try? await Task.sleep(for: every)  // the attacker's own pace, not a wait for an event
      for fd in slow.withLock({ $0 }) {
        _ = "X".withCString { send(fd, $0, 1, Int32(MSG_NOSIGNAL)) }  // closed by the server: EPIPE
      }
    }
  }

  /// Keeps `count` event streams of `token` open on `container`, reopening each the server ends
  /// after `retry` (the stream's own `retry: 1000`, as every EventSource client obeys; zero for
  /// a client that ignores it and floods), until cancelled.
  func flood(
    streams count: Int, token: String, container: String, server: URL, http: HTTPClient,
    retry: Duration
  ) async {
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<count {
        group.addTask {
          while !Task.isCancelled {
            var request = HTTPClientRequest(
              url: server.absoluteString + "/v1/containers/\(container)/events")
            request.headers.add(name: "Authorization", value: "Bearer \(token)")
            guard let response = try? await http.execute(request, timeout: .seconds(120)) else {
              continue
            }
            self.reopened.add(1, ordering: .relaxed)
            do {
              for try await _ in response.body {}
            } catch {}
            try? await Task.sleep(for: retry)  // the client's reconnection delay
          }
        }
      }
    }
  }

  /// Closes every connection.
  func close() {
    for fd in sockets.withLock({ $0 }) { Glibc.close(fd) }
    sockets.withLock { $0 = [] }
    slow.withLock { $0 = [] }
  }
}
