import NIOCore
import NIOHTTPTypes
import Synchronization

/// Caps the connections one address holds open at once at ``perAddress``: a further one closes
/// as it opens, so one client cannot take the connections everyone shares (those that send a
/// request's body a byte at a time included, which no idle timeout ends). Loopback is not
/// counted: behind a proxy every client comes from it, as the sign-in throttle reasons too.
///
/// A request's head that trickles in never holds a connection: the idle timeout counts decoded
/// request parts, not bytes, so a head that never ends closes the connection at the timeout
/// (`ConnectionGuardTests` pins this).
///
/// One guard serves the whole server (its counts are shared); ``handler()`` makes the channel
/// handler each connection needs.
final class ConnectionGuard: Sendable {
  /// The most connections one address may hold open at once.
  let perAddress: Int
  private let open = Mutex<[String: Int]>([:])

  init(perAddress: Int) {
    self.perAddress = perAddress
  }

  /// The handler for one new connection.
  func handler() -> Handler { Handler(guard: self) }

  /// How many connections `address` holds open now.
  func openConnections(from address: String) -> Int { open.withLock { $0[address] ?? 0 } }

  /// The key `address` is counted under; nil for loopback, which is not counted.
  static func key(_ address: SocketAddress?) -> String? {
    guard let ip = address?.ipAddress else { return nil }
    return isLoopback(ip) ? nil : ip
  }

  /// Whether the IP address `ip` is this machine's own.
  static func isLoopback(_ ip: String) -> Bool {
    ip == "::1" || ip.hasPrefix("127.") || ip.hasPrefix("::ffff:127.")
  }

  /// Counts a connection from `key` in; false (nothing counted) if it already holds its share.
  func admit(_ key: String) -> Bool {
    open.withLock { open in
      let count = open[key] ?? 0
      guard count < perAddress else { return false }
      open[key] = count + 1
      return true
    }
  }

  /// Counts a connection from `key` out.
  func release(_ key: String) {
    open.withLock { open in
      let count = (open[key] ?? 1) - 1
      open[key] = count > 0 ? count : nil
    }
  }

  /// The per-connection side: counts its connection in, or closes it, as it is added, and
  /// counts it out when it closes.
  final class Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart

    private let connections: ConnectionGuard

    init(guard connections: ConnectionGuard) { self.connections = connections }

    func handlerAdded(context: ChannelHandlerContext) {
      guard let key = ConnectionGuard.key(context.channel.remoteAddress) else { return }
      guard connections.admit(key) else {
        context.close(promise: nil)
        return
      }
      context.channel.closeFuture.whenComplete { [connections] _ in connections.release(key) }
    }
  }
}
