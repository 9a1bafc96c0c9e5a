import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP proxy on loopback the test controls: it counts the bytes it carries, can hold a
/// transfer once so many bytes have gone one way (so the test acts while it is surely in
/// flight, whatever the machine's load), and can cut the network — every open connection reset
/// and new ones refused — and restore it. Thread-based and small: it carries a test's few
/// connections.
final class NetworkProxy: Sendable {
  private struct State {
    var up = 0
    var down = 0
    var cut = false
    var sockets: Set<Int32> = []
    /// Hold what goes up (or down) once that direction's count reaches this.
    var holdUp: Int?
    var holdDown: Int?
    var holding = 0
  }

  let port: Int
  private let listener: Int32
  private let upstreamPort: Int
  private let state = Mutex(State())
  private let gate = NSCondition()

  /// A proxy to `upstreamPort` on loopback.
  init(to upstreamPort: Int) throws {
    self.upstreamPort = upstreamPort
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.listener = listener
    var address = Self.loopback(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, length) == 0 && listen(listener, 64) == 0
          && getsockname(listener, $0, &length) == 0
      }
    }
    guard bound else { throw SyncServerProcess.Failure("the test proxy could not listen") }
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread { [self] in acceptLoop() }.start()
  }

  /// Bytes carried towards the server and back.
  var bytes: (up: Int, down: Int) { state.withLock { ($0.up, $0.down) } }

  /// Stops forwarding once `up` bytes have gone towards the server (or `down` back) in all,
  /// until ``release()``: the transfer stalls in flight.
  func hold(up: Int? = nil, down: Int? = nil) {
    state.withLock {
      $0.holdUp = up
      $0.holdDown = down
    }
  }

  /// Whether a transfer is stalled at the hold.
  var isHolding: Bool { state.withLock { $0.holding > 0 } }

  /// Returns once a transfer is stalled at the hold (woken by the stalling pump, not polled),
  /// or false after `seconds`.
  func stalled(within seconds: Double = 60) async -> Bool {
    (try? await onThread { [self] in
      let deadline = Date(timeIntervalSinceNow: seconds)
      gate.lock()
      defer { gate.unlock() }
      while !isHolding {
        guard gate.wait(until: deadline) else { return isHolding }
      }
      return true
    }) ?? false
  }

  /// Forwards again.
  func release() {
    state.withLock {
      $0.holdUp = nil
      $0.holdDown = nil
    }
    gate.broadcast()
  }

  /// Resets every open connection and refuses new ones until ``restore()``.
  func cut() {
    let open = state.withLock { state in
      state.cut = true
      defer { state.sockets = [] }
      return state.sockets
    }
    for fd in open {
      var reset = linger(l_onoff: 1, l_linger: 0)  // RST, as a dropped link looks to the ends
      setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
      shutdown(fd, Int32(SHUT_RDWR))
    }
    gate.broadcast()  // a held transfer wakes to find its connection gone
  }

  /// Lets connections through again.
  func restore() { state.withLock { $0.cut = false } }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      if state.withLock({ $0.cut }) {
        close(client)
        continue
      }
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
      state.withLock { $0.sockets.formUnion([client, server]) }
      Thread { [self] in pump(from: client, to: server, up: true) }.start()
      Thread { [self] in pump(from: server, to: client, up: false) }.start()
    }
  }

  private func pump(from source: Int32, to target: Int32, up: Bool) {
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
      let n = read(source, &buffer, buffer.count)
      guard n > 0 else { break }
      state.withLock { if up { $0.up += n } else { $0.down += n } }
      gate.lock()
      while state.withLock({ state in
        let limit = up ? state.holdUp : state.holdDown
        let held = limit.map { (up ? state.up : state.down) >= $0 } ?? false
        return held && !state.cut
      }) {
        state.withLock { $0.holding += 1 }
        gate.broadcast()  // for stalled(within:); other stalled pumps check again and wait
        gate.wait()
        state.withLock { $0.holding -= 1 }
      }
      gate.unlock()
      var offset = 0
      while offset < n {
        let written = buffer.withUnsafeBytes {
          send(target, $0.baseAddress! + offset, n - offset, Int32(MSG_NOSIGNAL))
        }
        guard written > 0 else { break }
        offset += written
      }
    }
    shutdown(target, Int32(SHUT_RDWR))
    shutdown(source, Int32(SHUT_RDWR))
  }

  private static func loopback(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
  }
}
