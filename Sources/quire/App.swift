import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// `quire app` (and `quire` with no arguments): the document browser and editors as a local web
/// app.
struct App: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Start the Quire app: a document browser and editors in your web browser.",
    discussion: """
      Serves the library on 127.0.0.1 and prints the address to open; the address carries a \
      secret token, so only you can use it. Stop with Ctrl+C: open documents are saved first.
      """)

  @Option(help: "The library folder (default: $XDG_DATA_HOME/quire/Library, made on first run).")
  var library: String?
  @Option(help: "The port on 127.0.0.1 (0: any free port).") var port = 8610
  @Option(help: "The largest upload accepted, in MiB.") var maxUploadMb = 256
  @Option(help: "Seconds an edited document waits before it saves itself.")
  var autosaveDelay = 2.0

  @MainActor
  func execute() async throws {
    let folder = library.map { URL(fileURLWithPath: $0) } ?? AppConfiguration.defaultLibrary
    let server = try await AppServer(
      AppConfiguration(
        library: folder, port: port, maxUploadBytes: maxUploadMb << 20,
        autosaveDelay: .milliseconds(Int(autosaveDelay * 1000))))
    try await server.run { url in
      AppRecord.write(url: url, library: server.configuration.library)
      FileHandle.standardOutput.write(
        Data(
          "Quire is serving \(server.configuration.library.path)\nOpen \(url.absoluteString)\n"
            .utf8))
    }
    AppRecord.remove()
  }
}

/// Where a running app leaves its address for `quire open`: `$XDG_RUNTIME_DIR/quire-app.json`.
enum AppRecord {
  struct Record: Codable {
    var url: String
    var library: String
    var pid: Int32
  }

  static var file: URL {
    let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
    return URL(fileURLWithPath: base).appendingPathComponent("quire-app-\(getuid()).json")
  }

  static func write(url: URL, library: URL) {
    let record = Record(url: url.absoluteString, library: library.path, pid: getpid())
    guard let data = try? JSONEncoder().encode(record) else { return }
    _ = FileManager.default.createFile(
      atPath: file.path, contents: data, attributes: [.posixPermissions: 0o600])
  }

  static func remove() { unlink(file.path) }

  /// The running app, if there is one.
  static func running() -> Record? {
    guard let data = try? Data(contentsOf: file),
      let record = try? JSONDecoder().decode(Record.self, from: data), kill(record.pid, 0) == 0
    else { return nil }
    return record
  }
}
