import Foundation
import QuireSync
import QuireSyncProtocol
import Testing

/// A `quire server` in its own process, on a free loopback port, over a temporary data folder
/// with accounts made by `quire server add-user`.
///
/// Unchecked `Sendable`: one test uses it at a time, and hands it to ``onThread(_:)`` only while
/// it awaits that thread (a test on the main actor starts its server that way).
final class SyncServerProcess: @unchecked Sendable {
  let data: TemporaryDirectory
  private(set) var process: HelperProcess
  private(set) var url: URL
  private(set) var arguments: [String]
  /// More environment for the server (object storage's address and keys).
  let environment: [String: String]

  /// The PostgreSQL database keeping its metadata, if not SQLite in its folder.
  let database: URL?

  /// The arguments that name this server's data to `quire server` commands (`gc`, `revoke`, …).
  var dataArguments: [String] {
    ["--data", data.url.path] + (database.map { ["--database", $0.absoluteString] } ?? [])
  }

  /// Starts a server with the accounts `users` (name: password) and more `arguments` for
  /// `quire server` (such as `--tls-cert`), its metadata in SQLite or in `database`.
  init(
    users: [String: String] = ["alice": "alice-password", "bob": "bob-password"],
    arguments: [String] = [], environment: [String: String] = [:], database: URL? = nil
  ) throws {
    self.environment = environment
    self.database = database
    let databaseArguments = database.map { ["--database", $0.absoluteString] } ?? []
    self.arguments = arguments + databaseArguments
    data = try TemporaryDirectory()
    for (name, password) in users {
      let added = try Executables.run(
        "quire", ["server", "add-user", name, "--data", data.url.path] + databaseArguments,
        input: password + "\n")
      guard added.status == 0 else { throw Failure("add-user \(name): \(added.stderr)") }
    }
    (process, url) = try Self.start(data.url, arguments: self.arguments, environment: environment)
  }

  /// Starts a server as ``init(users:arguments:environment:database:)`` does, on a thread of
  /// its own (``onThread(_:)``). Making its accounts (bcrypt) and waiting for it to listen
  /// block for seconds under load, and must not hold one of the two cooperative threads a
  /// 2-core run has: with both held, every other test of the run stood still, and tests with
  /// deadlines failed (three presenter tests and a sync test, in two runs of two).
  static func started(
    users: [String: String] = ["alice": "alice-password", "bob": "bob-password"],
    arguments: [String] = [], environment: [String: String] = [:], database: URL? = nil
  ) async throws -> SyncServerProcess {
    try await onThread {
      try SyncServerProcess(
        users: users, arguments: arguments, environment: environment, database: database)
    }
  }

  /// A server on `backend`: SQLite and its folder, or a PostgreSQL database of its own in the
  /// test process's cluster and a prefix of its own in the test process's SeaweedFS.
  static func started(
    backend: ServerBackend,
    users: [String: String] = ["alice": "alice-password", "bob": "bob-password"]
  ) async throws -> SyncServerProcess {
    switch backend {
    case .embedded:
      return try await started(users: users)
    case .scaled:
      return try await started(
        users: users, arguments: ["--blobs", "s3://\(SeaweedFS.bucket)/\(UUID().uuidString)"],
        environment: try await SeaweedFS.shared.environment(),
        database: try await PostgresCluster.shared.database())
    }
  }

  /// Starts the server again over the same data and port (after ``kill()``), with other
  /// `arguments` if given (its database stays).
  func restart(arguments newArguments: [String]? = nil) throws {
    if let newArguments {
      arguments = newArguments + (database.map { ["--database", $0.absoluteString] } ?? [])
    }
    (process, url) = try Self.start(
      data.url, port: url.port ?? 0, arguments: arguments, environment: environment)
  }

  /// SIGKILL: the server gets no chance to finish anything.
  func kill() { process.kill() }

  /// A device of `user`, signed in as `device`.
  func client(
    _ user: String, password: String? = nil, device: String = "test",
    container: String = "iCloud.net.gacha.mydoc"
  )
    async throws -> SyncClient
  {
    let answer = try await SyncClient.signIn(
      server: url, user: user, password: password ?? "\(user)-password", device: device)
    return SyncClient(server: url, token: answer.token, container: container)
  }

  private static func start(
    _ data: URL, port: Int = 0, arguments: [String], environment: [String: String]
  ) throws -> (HelperProcess, URL) {
    let process = try HelperProcess(
      ["server", "--data", data.path, "--port", String(port)] + arguments, executable: "quire",
      environment: environment)
    while let line = process.lines.nextLine() {
      if line.hasPrefix("Quire server listening on "),
        let url = URL(string: String(line.dropFirst("Quire server listening on ".count)))
      {
        return (process, url)
      }
    }
    throw Failure("quire server exited before listening")
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}

/// The engines a test server runs on: the server suites run against both.
enum ServerBackend: String, CaseIterable, CustomTestStringConvertible, Sendable {
  /// SQLite and a folder of chunks, the default.
  case embedded
  /// PostgreSQL (a real server) and S3-compatible object storage (SeaweedFS).
  case scaled

  var testDescription: String {
    self == .embedded ? "SQLite and a folder" : "PostgreSQL and SeaweedFS (S3)"
  }
}
