import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP proxy on loopback that counts the bytes crossing it in each direction: how the sync
/// benchmarks measure bytes on the wire at the socket. Hand-written (a thread per direction per
/// connection) because it only has to carry a benchmark's few connections.
final class ByteCountingProxy: Sendable {
  let port: Int
  private let listener: Int32
  private let upstreamPort: Int
  private let counts = Mutex<(up: Int, down: Int)>((0, 0))

  init(to upstreamPort: Int) throws {
    self.upstreamPort = upstreamPort
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = Self.loopback(port: 0)
    var one: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0, listen(listener, 64) == 0 else {
      throw RawFiles.Failure(description: "the proxy could not listen")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    self.listener = listener
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread { [self] in acceptLoop() }.start()
  }

  /// Bytes sent to the server and received from it since the last reset.
  var bytes: (up: Int, down: Int) { counts.withLock { $0 } }

  func reset() { counts.withLock { $0 = (0, 0) } }

  /// Waits until nothing crosses for a second (the sync in progress is over), then resets.
  func waitQuiet() {
    repeat {
      reset()
      usleep(1_000_000)  // a quiet second, measured by the counts
    } while bytes.up + bytes.down > 0
  }

  /// The bytes both ways since the last reset, once a second passes with none more: a sync's
  /// last requests (the echo to the sender, the receiver's own scan) count too.
  func bytesUntilQuiet() -> Int {
    var total = 0
    repeat {
      total = bytes.up + bytes.down
      usleep(1_000_000)
    } while bytes.up + bytes.down != total
    return total
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = Self.loopback(port: upstreamPort)
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
          connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
      }
      guard connected == 0 else {
        close(client)
        close(server)
        continue
      }
      var one: Int32 = 1  // no Nagle: forward each write as it comes, as a direct connection would
      setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      Thread { [self] in pump(from: client, to: server, up: true) }.start()
      Thread { [self] in pump(from: server, to: client, up: false) }.start()
    }
  }

  private func pump(from source: Int32, to target: Int32, up: Bool) {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = read(source, &buffer, buffer.count)
      guard n > 0 else { break }
      counts.withLock { if up { $0.up += n } else { $0.down += n } }
      var offset = 0
      while offset < n {
        let written = buffer.withUnsafeBytes {
          send(target, $0.baseAddress! + offset, n - offset, Int32(MSG_NOSIGNAL))
        }
        guard written > 0 else { break }
        offset += written
      }
    }
    shutdown(target, Int32(SHUT_WR))
    shutdown(source, Int32(SHUT_RD))
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}
