import AsyncHTTPClient
import NIOSSL
import QuireSyncProtocol
import Synchronization

/// The HTTP client a device reaches its server with: it trusts the system's certificate
/// authorities and — for a server with a self-signed certificate or a private authority — a
/// given PEM certificate too. It lives as long as the process.
public enum TrustedHTTPClient {
  /// One client per trusted file, never shut down: an HTTPClient must not be released while
  /// running, and a device needs it until the process ends.
  private static let clients = Mutex<[String: HTTPClient]>([:])

  /// A client that trusts `certificateAuthority` (a PEM file) besides the system's (only the
  /// system's when it is nil).
  ///
  /// - Throws: ``SyncError`` `malformed` naming the file if it is not a PEM certificate.
  public static func trusting(_ certificateAuthority: String?) throws(SyncError) -> HTTPClient {
    var tls = TLSConfiguration.makeClientConfiguration()
    if let certificateAuthority {
      do {
        _ = try NIOSSLCertificate.fromPEMFile(certificateAuthority)  // fail now, with its name
      } catch {
        throw SyncError(
          .malformed,
          "“\(certificateAuthority)” is not a PEM certificate to trust: \(error). Give the server's certificate (or its authority's) in PEM.",
          cause: error)
      }
      tls.additionalTrustRoots = [.file(certificateAuthority)]
    }
    return clients.withLock { clients in
      if let client = clients[certificateAuthority ?? ""] { return client }
      var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
      // A refused connection or certificate fails the request at once: the agent has its own
      // back-off, and a sign-in to an untrusted server says so instead of retrying for a minute.
      configuration.connectionPool.retryConnectionEstablishment = false
      let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
      clients[certificateAuthority ?? ""] = client
      return client
    }
  }
}
