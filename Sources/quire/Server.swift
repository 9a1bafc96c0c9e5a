import ArgumentParser
import Foundation
import QuireCore
import QuireServer
import QuireSyncProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// `quire server`: Quire Sync's server, and its accounts and devices.
struct Server: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Run a Quire Sync server, and manage its accounts and devices.",
    discussion: """
      With no subcommand it serves: SQLite and a folder of chunks under --data, nothing to set \
      up; --blobs s3://BUCKET keeps the chunks in S3-compatible object storage instead (endpoint \
      from AWS_ENDPOINT_URL, keys from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), and \
      --database postgres://… the metadata in PostgreSQL, so several replicas can serve behind \
      a load balancer (`quire server migrate --to postgres://…` moves an embedded server there). Add an account with `quire server add-user NAME`; devices sign in with `quire sync login`.
      """,
    subcommands: [
      RunServer.self, AddUser.self, Devices.self, Revoke.self, AppPassword.self,
      CollectGarbage.self, MigrateServer.self,
    ],
    defaultSubcommand: RunServer.self)
}

/// Where the server's data is.
struct ServerDataOption: ParsableArguments {
  @Option(help: "The server's data folder (default: $XDG_DATA_HOME/quire/server).")
  var data: String?
  @Option(
    help: """
      Keep the metadata in PostgreSQL, postgres://USER:PASSWORD@HOST:PORT/DATABASE, shared by \
      every replica (default: SQLite in the data folder).
      """)
  var database: String?

  var folder: URL { data.map { URL(fileURLWithPath: $0) } ?? ServerConfiguration.defaultData }

  /// The PostgreSQL address, if one was given.
  var postgres: URL? {
    get throws(SyncError) {
      guard let database else { return nil }
      guard let url = URL(string: database), url.scheme?.hasPrefix("postgres") == true else {
        throw SyncError(
          .malformed,
          "--database takes a PostgreSQL address, postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
      }
      return url
    }
  }

  /// The store these options name.
  func store() throws(SyncError) -> ServerStore {
    try ServerStore(folder: folder, postgres: postgres)
  }
}

/// `quire server run`: serves until SIGTERM or Ctrl+C; requests in flight finish first.
struct RunServer: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "run", abstract: "Serve (the default).")

  @OptionGroup var data: ServerDataOption
  @Option(help: "The address to listen on.") var host = "127.0.0.1"
  @Option(help: "The port (0: any free port).") var port = 8620
  @Option(
    help: """
      A host name requests must be addressed to, such as the server's public name (repeat for \
      more; the loopback names always pass). Without one, every name is answered.
      """)
  var trustedHost: [String] = []
  @Option(help: "Serve HTTPS with this PEM certificate chain (with --tls-key).") var tlsCert:
    String?
  @Option(help: "The PEM private key of --tls-cert.") var tlsKey: String?
  @Option(help: "The most members one commit (one package revision) may list.")
  var maxMembersPerCommit = 200_000
  @Option(help: "Seconds between collections of what no version needs (0: never).")
  var gcInterval = 3600
  @Option(
    help:
      "Seconds a sign-in waits after five wrong passwords for one name or from one address (doubling each time, up to 15 minutes)."
  )
  var signInWait = 5.0
  @Option(
    help: """
      Seconds a connection may stay idle (a request's head that trickles in a byte at a time \
      counts as idle).
      """)
  var idleTimeout = 75.0
  @Option(
    help: """
      Seconds a request's body may keep the server waiting, plus one for each 500 bytes that \
      arrive; a slower body has its connection closed.
      """)
  var bodyGrace = 20.0
  @Option(help: "The most connections one address may hold open at once (loopback: no limit).")
  var connectionsPerAddress = 512
  @Option(help: "Days a web drive's session lasts unused before its browser must sign in again.")
  var webSessionDays = 7.0
  @Option(
    help: """
      Keep chunk bytes in S3-compatible object storage, s3://BUCKET[/PREFIX], from the first \
      start on (remembered in the data folder).
      """)
  var blobs: String?

  @MainActor
  func execute() async throws {
    var configuration = ServerConfiguration(data: data.folder, host: host, port: port)
    configuration.postgres = try data.postgres
    configuration.maximumMembersPerCommit = maxMembersPerCommit
    configuration.collectionInterval = gcInterval > 0 ? .seconds(gcInterval) : nil
    guard signInWait.isFinite, (0...86_400).contains(signInWait) else {
      throw SyncError(.malformed, "--sign-in-wait takes 0 to 86400 seconds, not \(signInWait).")
    }
    configuration.signInWait = .milliseconds(Int(signInWait * 1000))
    guard idleTimeout.isFinite, (0.1...86_400).contains(idleTimeout) else {
      throw SyncError(.malformed, "--idle-timeout takes 0.1 to 86400 seconds, not \(idleTimeout).")
    }
    configuration.idleTimeout = .milliseconds(Int(idleTimeout * 1000))
    guard bodyGrace.isFinite, (0.1...86_400).contains(bodyGrace) else {
      throw SyncError(.malformed, "--body-grace takes 0.1 to 86400 seconds, not \(bodyGrace).")
    }
    configuration.bodyGrace = .milliseconds(Int(bodyGrace * 1000))
    guard connectionsPerAddress >= 1 else {
      throw SyncError(
        .malformed, "--connections-per-address takes 1 or more, not \(connectionsPerAddress).")
    }
    configuration.maximumConnectionsPerAddress = connectionsPerAddress
    guard webSessionDays.isFinite, (0.001...365).contains(webSessionDays) else {
      throw SyncError(
        .malformed, "--web-session-days takes 0.001 to 365 days, not \(webSessionDays).")
    }
    configuration.webSessionLifetime = .milliseconds(Int(webSessionDays * 86_400_000))
    configuration.tlsCertificate = tlsCert.map { URL(fileURLWithPath: $0) }
    configuration.tlsKey = tlsKey.map { URL(fileURLWithPath: $0) }
    configuration.trustedHosts = trustedHost
    configuration.objectStorage = try blobs.map { text throws(SyncError) in
      try ObjectStorage(url: text)
    }
    ServiceHeap.limitArenas()
    let server = try SyncServer(configuration)
    StopSignals.unblock()
    try await server.run { url in
      FileHandle.standardOutput.write(
        Data("Quire server listening on \(url.absoluteString)\n".utf8))
    }
  }
}

/// `quire server add-user NAME`: the password comes from the terminal, or from the first line of
/// standard input when it is not a terminal.
struct AddUser: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "add-user", abstract: "Add an account (asks for its password).")

  @OptionGroup var data: ServerDataOption
  @Argument(help: "The account name.") var name: String

  func execute() throws {
    let password = try PasswordPrompt.read("Password for \(name): ")
    try data.store().accounts.addUser(name: name, password: password)
    print("Added \(name).")
  }
}

/// `quire server devices NAME`.
struct Devices: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "List the devices signed in to an account.")

  @OptionGroup var data: ServerDataOption
  @Argument(help: "The account name.") var name: String

  func execute() throws {
    let formatter = ISO8601DateFormatter()
    for device in try data.store().accounts.devices(of: name) {
      print(
        "\(device.id)\t\(device.name)\t\(formatter.string(from: device.created))\(device.revoked ? "\trevoked" : "")"
      )
    }
  }
}

/// `quire server revoke DEVICE`.
struct Revoke: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke a device's token; it must sign in again.")

  @OptionGroup var data: ServerDataOption
  @Argument(help: "The device identifier (from quire server devices).") var device: String

  func execute() throws {
    try data.store().accounts.revoke(device: device)
    print("Revoked \(device).")
  }
}

/// `quire server gc`: frees now what the server's hourly collection would.
struct CollectGarbage: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "gc",
    abstract: "Free the chunks no version needs (removed conflict versions, crashed uploads).",
    discussion: "Safe while the server runs: a chunk younger than --grace is always kept.")

  @OptionGroup var data: ServerDataOption
  @Option(help: "Keep what is younger than this many seconds.") var grace = 3600

  func execute() throws {
    let report = try data.store().chunks.collectGarbage(grace: .seconds(grace))
    print(
      "Freed \(report.chunks) chunks in \(report.files) files (\(report.bytes) bytes); thinned \(report.thinned) old versions."
    )
  }
}
