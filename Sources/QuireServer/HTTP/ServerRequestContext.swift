import Hummingbird
import NIOCore

/// A request's context: Hummingbird's own, and the peer's address, which the sign-in throttle
/// keys on.
struct ServerRequestContext: RequestContext, RemoteAddressRequestContext {
  /// Hummingbird's storage for the request (allocator, logger, parameters).
  var coreContext: CoreRequestContextStorage
  /// The address the connection came from.
  let remoteAddress: SocketAddress?

  init(source: ApplicationRequestContextSource) {
    coreContext = .init(source: source)
    remoteAddress = source.channel.remoteAddress
  }

  /// The peer's IP address, or "" when unknown (a Unix socket).
  var peer: String { remoteAddress?.ipAddress ?? "" }
}
