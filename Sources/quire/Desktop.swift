import ArgumentParser
import Foundation
import Quire
import QuireApp

#if canImport(Glibc)
  import Glibc
#endif

/// The desktop entry and MIME types of Quire's document types.
enum QuireDesktop {
  static func integration() -> DesktopIntegration {
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    return DesktopIntegration(
      name: "quire", displayName: "Quire", exec: "\"\(executable)\" open %f",
      declarations: SampleTypes.declarations)
  }
}

/// `quire install-desktop`: file managers and `xdg-open` open Quire's documents in the app.
struct InstallDesktop: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "install-desktop",
    abstract: "Register Quire's document types and its desktop entry (freedesktop.org).")

  func execute() throws {
    let integration = QuireDesktop.integration()
    for url in try integration.install() { print("wrote \(url.path)") }
    print("registered: \(integration.mimeTypes.joined(separator: ", "))")
  }
}

/// `quire uninstall-desktop`: undoes `install-desktop`.
struct UninstallDesktop: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "uninstall-desktop", abstract: "Remove what install-desktop registered.")

  func execute() throws {
    let removed = QuireDesktop.integration().uninstall()
    if removed.isEmpty { print("nothing was installed") }
    for url in removed { print("removed \(url.path)") }
  }
}

/// `quire open PATH`: opens a document in place in the running app whose library holds it, or
/// starts an app on the document's folder; prints the address (and opens it where a desktop
/// session is).
struct Open: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Open a document in the Quire app, in place (starting the app if needed).")

  @Argument(help: "The document.") var path: String
  @Flag(help: "Only print the address; do not start a web browser.") var printOnly = false

  func execute() throws {
    let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "There is no document at \(url.path).", path: url.path)
    }
    _ = try SampleDocuments.Kind(url: url).orThrow(
      QuireError(
        .unknownType, "“\(url.lastPathComponent)” is not a document Quire opens.", path: url.path))
    let record = try Self.app(holding: url)
    let library = URL(fileURLWithPath: record.library).resolvingSymlinksInPath().path
    let relative = String(url.path.dropFirst(library.count + 1))
    let encoded =
      relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative
    let address = record.url + "#/doc/" + encoded
    print(address)
    let environment = ProcessInfo.processInfo.environment
    if !printOnly, environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
      FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-open")
    {
      let opener = Process()
      opener.executableURL = URL(fileURLWithPath: "/usr/bin/xdg-open")
      opener.arguments = [address]
      try? opener.run()
    }
  }

  /// The running app whose library holds `url`, or a new one on its folder.
  static func app(holding url: URL) throws -> AppRecord.Record {
    let inside = { (record: AppRecord.Record) in
      url.path.hasPrefix(
        URL(fileURLWithPath: record.library).resolvingSymlinksInPath().path + "/")
    }
    if let record = AppRecord.running().first(where: inside) { return record }
    let app = Process()
    app.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    app.arguments = ["app", "--library", url.deletingLastPathComponent().path, "--port", "0"]
    app.standardOutput = FileHandle.nullDevice
    app.standardError = FileHandle.nullDevice
    app.standardInput = FileHandle.nullDevice
    try app.run()
    let deadline = Date().addingTimeInterval(20)
    while Date() < deadline {
      if let record = AppRecord.running().first(where: { $0.pid == app.processIdentifier }) {
        return record
      }
      usleep(20_000)  // polling for the new app's record, with a deadline
    }
    throw QuireError(.timedOut, "The Quire app did not start within 20 seconds.")
  }
}

extension Optional {
  fileprivate func orThrow(_ error: QuireError) throws -> Wrapped {
    guard let self else { throw error }
    return self
  }
}
