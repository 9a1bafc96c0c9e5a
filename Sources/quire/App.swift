import ArgumentParser
import Foundation
import Quire
import QuireApp
import QuireCore

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
    if let running = AppRecord.running().first(where: {
      URL(string: $0.url)?.port == port
        && URL(fileURLWithPath: $0.library).standardizedFileURL.path
          == folder.standardizedFileURL.path
    }) {
      throw QuireError(
        .alreadyExists, "Quire is already serving this library: open \(running.url)")
    }
    var configuration = AppConfiguration(
      library: folder, port: port, maxUploadBytes: maxUploadMb << 20,
      autosaveDelay: .milliseconds(Int(autosaveDelay * 1000)))
    configuration.syncAgentCommand = [
      URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path, "sync", "run",
      "--folder", configuration.library.path,
    ]
    ServiceHeap.limitArenas()
    let server = try await AppServer(configuration)
    StopSignals.unblock()
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

/// Where each running app leaves its address and library for `quire open`:
/// `$XDG_RUNTIME_DIR/quire-apps/PID.json` (or under the temporary folder).
enum AppRecord {
  struct Record: Codable {
    var url: String
    var library: String
    var pid: Int32
  }

  static var folder: URL {
    let base = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"] ?? NSTemporaryDirectory()
    return URL(fileURLWithPath: base).appendingPathComponent("quire-apps-\(getuid())")
  }

  static func write(url: URL, library: URL) {
    let record = Record(url: url.absoluteString, library: library.path, pid: getpid())
    guard let data = try? JSONEncoder().encode(record) else { return }
    try? FileManager.default.createDirectory(
      at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    _ = FileManager.default.createFile(
      atPath: folder.appendingPathComponent("\(getpid()).json").path, contents: data,
      attributes: [.posixPermissions: 0o600])
  }

  static func remove() { unlink(folder.appendingPathComponent("\(getpid()).json").path) }

  /// The running apps (records of apps that died are removed).
  static func running() -> [Record] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return names.compactMap { name in
      let file = folder.appendingPathComponent(name)
      guard let data = try? Data(contentsOf: file),
        let record = try? JSONDecoder().decode(Record.self, from: data)
      else { return nil }
      guard kill(record.pid, 0) == 0 else {
        unlink(file.path)
        return nil
      }
      return record
    }
  }
}
