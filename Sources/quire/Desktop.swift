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
    abstract:
      "Register Quire's document types and desktop entry (freedesktop.org), and the sync agent's systemd user unit."
  )

  func execute() throws {
    let integration = QuireDesktop.integration()
    for url in try integration.install() { print("wrote \(url.path)") }
    print("registered: \(integration.mimeTypes.joined(separator: ", "))")
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    do {
      let unit = try SyncServiceUnit.install(executable: executable)
      print("wrote \(unit.path) (sync in the background: systemctl --user enable --now quire-sync)")
    } catch {
      throw QuireError(
        .ioError, "Could not write \(SyncServiceUnit.url.path). Check that the folder is writable.",
        path: SyncServiceUnit.url.path, cause: error)
    }
  }
}

/// `quire uninstall-desktop`: undoes `install-desktop`.
struct UninstallDesktop: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "uninstall-desktop", abstract: "Remove what install-desktop registered.")

  func execute() throws {
    let removed =
      QuireDesktop.integration().uninstall() + [SyncServiceUnit.uninstall()].compactMap { $0 }
    if removed.isEmpty { print("nothing was installed") }
    for url in removed { print("removed \(url.path)") }
  }
}

/// `quire open PATH`: opens a document in place in the running app (starting one if none runs)
/// and prints its address, opening it in a web browser where a desktop session is.
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
    let address = try Self.address(for: url)
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

  /// The page of the document: in the library of a running app, by its path there; anywhere
  /// else, opened in place by the running app (or one started now) and named by its handle.
  static func address(for url: URL) throws -> String {
    let running = AppRecord.running()
    for record in running {
      let library = URL(fileURLWithPath: record.library).resolvingSymlinksInPath().path
      guard url.path.hasPrefix(library + "/") else { continue }
      let relative = String(url.path.dropFirst(library.count + 1))
      return record.url + "#/doc/"
        + (relative.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? relative)
    }
    let record = try running.first ?? startApp()
    let handle = try AppClient(record: record).openInPlace(url)
    return record.url + "#/handle/" + handle
  }

  /// Starts `quire app` on the default library, on any free port, and waits for its record.
  static func startApp() throws -> AppRecord.Record {
    let app = Process()
    app.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    app.arguments = ["app", "--port", "0"]
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
