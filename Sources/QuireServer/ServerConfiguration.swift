import Foundation
import QuireCore

/// How a ``SyncServer`` runs: where it keeps its data, where it listens, and what it accepts.
public struct ServerConfiguration: Sendable {
  /// The folder of the server's database and blobs.
  public var data: URL
  /// The PostgreSQL database that keeps the metadata, `postgres://USER:PASSWORD@HOST:PORT/DB`,
  /// shared by every replica; nil keeps it in SQLite in `data`.
  public var postgres: URL?
  /// Where chunk bytes go on the first start: S3-compatible object storage; nil keeps them in
  /// `data/blobs`. Later starts use what the first one chose.
  public var objectStorage: ObjectStorage?
  /// The address to listen on (`127.0.0.1` by default; to go public, serve TLS with
  /// ``tlsCertificate`` and ``tlsKey`` or put a TLS proxy in front).
  public var host: String
  /// The port (0: any free port).
  public var port: Int
  /// The host names requests must be addressed to (their `Host`, port aside), besides the
  /// loopback names; empty answers every name. Set it to the server's public name: a page that
  /// DNS rebinding points at the server then reaches nothing.
  public var trustedHosts: [String] = []
  /// The largest JSON body accepted (a commit's manifest change), in bytes.
  public var maximumJSONBytes = 32 << 20
  /// The largest body of chunk frames accepted, in bytes.
  public var maximumChunkBodyBytes = 16 << 20
  /// The most members one commit may write or remove.
  public var maximumMembersPerCommit = 200_000
  /// Commits a device may make in a burst, and per second after it.
  public var commitBurst = 200
  /// See ``commitBurst``.
  public var commitsPerSecond = 50.0
  /// A PEM certificate chain to serve HTTPS with (with ``tlsKey``); nil serves plain HTTP.
  public var tlsCertificate: URL?
  /// The PEM private key of ``tlsCertificate``.
  public var tlsKey: URL?
  /// How long a connection may stay idle (no request, or a request's head or body not arriving)
  /// before the server closes it. It counts decoded request parts, not bytes: a request's head
  /// that trickles in a byte at a time (slowloris) is closed at the timeout all the same. Longer than the clients' own pool timeout (60 s), so a device
  /// closes its idle connections first; an event stream being answered is never idle.
  public var idleTimeout: Duration = .seconds(75)
  /// How long a request's body may keep the server waiting before it must keep up with
  /// ``minimumBodyRate``; a body sent a byte at a time, which the idle timeout never ends, is
  /// closed then (Apache's `mod_reqtimeout` defaults: 20 s and 500 bytes a second).
  public var bodyGrace: Duration = .seconds(20)
  /// Bytes a second: each such many bytes of a request's body extend ``bodyGrace`` by a second.
  public var minimumBodyRate = 500
  /// The most connections served at once; further ones wait in the listen queue until one
  /// closes. Never more than the process's file limit allows (which the server raises to its
  /// hard limit at start), less what the database and blobs need.
  public var maximumConnections = 100_000
  /// The most connections one address may hold open at once (loopback, where a proxy's clients
  /// all come from, is not counted).
  public var maximumConnectionsPerAddress = 512
  /// How long a sign-in waits after five wrong passwords for one name or from one address;
  /// each further wrong password doubles it, up to 15 minutes.
  public var signInWait: Duration = .seconds(5)
  /// How long a web drive's session lasts unused before the browser must sign in again.
  public var webSessionLifetime: Duration = SessionLifetime.standard
  /// How often an idle event stream sends a keep-alive comment.
  public var keepAliveInterval: Duration = .seconds(15)
  /// How often the server frees the chunks no version needs (``ChunkStore/collectGarbage(grace:now:)``);
  /// nil never.
  public var collectionInterval: Duration? = .seconds(3600)
  /// How old an unneeded chunk must be before it is freed.
  public var collectionGrace: Duration = .seconds(3600)

  /// The default data folder: `$XDG_DATA_HOME/quire/server` (or `~/.local/share/quire/server`).
  public static var defaultData: URL {
    XDGBase.data.folder().appendingPathComponent("quire/server")
  }

  /// A configuration with data in `data`, listening on `host`:`port`.
  public init(data: URL = defaultData, host: String = "127.0.0.1", port: Int = 8620) {
    self.data = data
    self.host = host
    self.port = port
  }
}
