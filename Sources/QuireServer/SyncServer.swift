import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import QuireCore
import QuireSyncProtocol
import Synchronization

/// Quire Sync's server: accounts and devices, containers of items with revision chains, chunks
/// by hash, and a change journal pushed over server-sent events — the iCloud Drive server role,
/// self-hosted.
///
/// ```swift
/// let server = try SyncServer(ServerConfiguration(data: folder, port: 0))
/// try await server.run { url in print("Quire server listening on \(url)") }
/// ```
public final class SyncServer: Sendable {
  /// How it runs.
  public let configuration: ServerConfiguration
  /// Its durable state.
  public let store: ServerStore
  private let boundPort: Mutex<Int>

  /// A server over the data in `configuration.data` (made if missing).
  public init(_ configuration: ServerConfiguration) throws(SyncError) {
    self.configuration = configuration
    store = try ServerStore(
      folder: configuration.data, postgres: configuration.postgres,
      objectStorage: configuration.objectStorage)
    _ = try store.chunks.blobs  // opened now: wrong keys or an unreachable bucket stop the start
    boundPort = Mutex(configuration.port)
  }

  /// Logs go to standard error, so standard output carries only the "listening on" line.
  static let logger: Logger = {
    var logger = Logger(label: "quire-server") { StreamLogHandler.standardError(label: $0) }
    logger.logLevel =
      ProcessInfo.processInfo.environment["QUIRE_SERVER_LOG"].flatMap { Logger.Level(rawValue: $0) }
      ?? .notice
    return logger
  }()

  /// The address it serves (with the bound port once running).
  public var url: URL {
    URL(
      string:
        "\(configuration.tlsCertificate == nil ? "http" : "https")://\(configuration.host):\(boundPort.withLock { $0 })"
    )!
  }

  /// Serves until the task is cancelled or the process gets SIGTERM or SIGINT (requests in
  /// flight finish first); `ready` gets the address once the port is bound.
  public func run(ready: @escaping @Sendable (URL) -> Void) async throws {
    if let name = TrustedHosts.invalid(configuration.trustedHosts) {
      throw SyncError(
        .malformed,
        "“\(name)” is not a host name. Give --trusted-host the server's name, such as drive.example.com."
      )
    }
    let router = Router(context: ServerRequestContext.self)
    // Requests run on threads of their own: the store's work blocks (a PostgreSQL round trip,
    // an fsync or a blob read with SQLite), and Swift's cooperative threads serve everyone.
    router.middlewares.add(
      ExecutorMiddleware<ServerRequestContext>(executor: BlockingExecutor.shared))
    router.middlewares.add(SyncErrorMiddleware<ServerRequestContext>())
    router.middlewares.add(
      TrustedHostCheck<ServerRequestContext>(hosts: TrustedHosts(configuration.trustedHosts)))
    let reading = RequestReading(
      store: store, maximumJSONBytes: configuration.maximumJSONBytes,
      revoked: RevokedTokens(interval: configuration.keepAliveInterval) {
        [store] () throws(SyncError) in
        try store.accounts.revokedTokenHashes()
      })
    let limiter = CommitRateLimiter(
      burst: configuration.commitBurst, perSecond: configuration.commitsPerSecond)
    let database = store.database
    let signal = JournalSignal { database.announce($0) }
    // Commits made through other replicas (PostgreSQL's notifications; nothing with SQLite).
    let listening = Task {
      await database.listen { key in
        if let key { signal.wake(key) } else { signal.wakeAll() }
      }
    }
    defer { listening.cancel() }
    let throttle = SignInThrottle(first: configuration.signInWait)
    SyncRoutes(
      store: store, configuration: configuration, reading: reading, limiter: limiter,
      signal: signal, throttle: throttle
    ).add(to: router)
    VersionRoutes(store: store, reading: reading, limiter: limiter, signal: signal)
      .add(to: router)
    LinkRoutes(store: store, reading: reading).add(to: router)
    ShareRoutes(
      store: store, configuration: configuration, reading: reading, limiter: limiter,
      signal: signal, throttle: throttle
    ).add(to: router)
    PublicPage(store: store, heavy: reading.heavy).add(to: router)
    DAVRoutes(
      store: store, configuration: configuration, signal: signal, heavy: reading.heavy
    ).add(to: router)
    WebDrive(
      store: store, configuration: configuration, reading: reading, signal: signal,
      signIn: PasswordSignIn(store: store, throttle: throttle)
    ).add(to: router)
    let application = Application(
      router: router, server: try serverBuilder(),
      configuration: .init(
        address: .hostname(configuration.host, port: configuration.port),
        serverName: "Quire Sync", backlog: 1024,
        availableConnectionsDelegate: MaximumAvailableConnections(
          max(64, min(configuration.maximumConnections, FileLimit.raiseToHard() - 256)))),
      onServerRunning: { [self] channel in
        if let port = channel.localAddress?.port { boundPort.withLock { $0 = port } }
        ready(url)
      },
      logger: Self.logger
    )
    let collecting = Task { [store, configuration] in
      guard let interval = configuration.collectionInterval else { return }
      while !Task.isCancelled {
        do { try await Task.sleep(for: interval) } catch { return }  // the collection period
        do {
          let report = try store.chunks.collectGarbage(grace: configuration.collectionGrace)
          if report.chunks > 0 || report.files > 0 {
            Self.logger.info(
              "Freed \(report.chunks) chunks, \(report.files) files, \(report.bytes) bytes no version needs."
            )
          }
        } catch {
          Self.logger.error("Garbage collection failed: \(error)")
        }
      }
    }
    defer { collecting.cancel() }
    do {
      try await application.runService()
    } catch let error as IOError where error.errnoCode == EADDRINUSE {
      throw SyncError(
        .unavailable,
        "Port \(configuration.port) on \(configuration.host) is taken. Choose another with --port N.",
        cause: error)
    }
  }

  /// Plain HTTP/1.1, or HTTPS with the configured certificate and key.
  private func serverBuilder() throws(SyncError) -> HTTPServerBuilder {
    let idle = min(configuration.idleTimeout, .seconds(86_400)).components  // no overflow
    let timeout = TimeAmount.nanoseconds(
      idle.seconds * 1_000_000_000 + idle.attoseconds / 1_000_000_000)
    let connections = ConnectionGuard(
      perAddress: max(1, configuration.maximumConnectionsPerAddress))
    let pace = BodyPace(grace: configuration.bodyGrace, minimumRate: configuration.minimumBodyRate)
    let http1 = HTTP1Channel.Configuration(
      additionalChannelHandlers: [
        connections.handler(), BodyPaceHandler(pace: pace),
        StoppingResponses(grace: .seconds(2)),
      ],
      idleTimeout: timeout)
    guard let certificate = configuration.tlsCertificate, let key = configuration.tlsKey else {
      if configuration.tlsCertificate != nil || configuration.tlsKey != nil {
        throw SyncError(
          .malformed, "HTTPS needs both a certificate (--tls-cert) and its key (--tls-key).")
      }
      return .http1(configuration: http1)
    }
    do {
      let chain = try NIOSSLCertificate.fromPEMFile(certificate.path).map {
        NIOSSLCertificateSource.certificate($0)
      }
      let privateKey = try NIOSSLPrivateKey(file: key.path, format: .pem)
      var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: chain, privateKey: .privateKey(privateKey))
      tls.minimumTLSVersion = .tlsv12  // TLS 1.0 and 1.1 are broken and deprecated (RFC 8996)
      return try .tls(.http1(configuration: http1), tlsConfiguration: tls)
    } catch {
      throw SyncError(
        .malformed,
        "The TLS certificate “\(certificate.path)” or key “\(key.path)” could not be read: \(error). Both must be PEM files, the key unencrypted.",
        cause: error)
    }
  }
}
