import ArgumentParser
import Foundation
import QuireServer
import QuireSyncProtocol

/// `quire server migrate --to postgres://…`: moves an embedded server's metadata into
/// PostgreSQL, so it can run as several replicas.
struct MigrateServer: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "migrate",
    abstract: "Copy an embedded (SQLite) server's metadata into an empty PostgreSQL database.",
    discussion: """
      Stop the server first. Every account, device token, revision and journal sequence comes \
      along, so devices carry on where they were. Chunk bytes stay where they are: start \
      `quire server --database postgres://…` with the same --data (or the same --blobs bucket).
      """)

  @Option(help: "The server's data folder (default: $XDG_DATA_HOME/quire/server).")
  var data: String?
  @Option(help: "The empty PostgreSQL database, postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
  var to: String

  func execute() throws {
    guard let target = URL(string: to), target.scheme?.hasPrefix("postgres") == true else {
      throw SyncError(
        .malformed, "--to takes a PostgreSQL address, postgres://USER:PASSWORD@HOST:PORT/DATABASE.")
    }
    let folder = data.map { URL(fileURLWithPath: $0) } ?? ServerConfiguration.defaultData
    guard
      FileManager.default.fileExists(atPath: folder.appendingPathComponent("server.sqlite").path)
    else {
      throw SyncError(.notFound, "There is no embedded server in “\(folder.path)” to migrate.")
    }
    let rows = try ServerStore(folder: folder).migrate(to: target)
    print(
      "Copied \(rows) rows into PostgreSQL. Start it with: quire server --data \(folder.path) --database …"
    )
  }
}
