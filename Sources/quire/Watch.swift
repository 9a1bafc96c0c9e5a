import ArgumentParser
import Foundation
import Quire

/// `quire watch PATH`: prints changes as they happen.
struct Watch: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Print changes to a folder tree or a file as they happen (until interrupted).")

  @Argument(help: "The folder or file to watch.") var path: String

  @MainActor
  func execute() async throws {
    let url = URL(fileURLWithPath: path)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "“\(url.path)” does not exist; check the path.", path: url.path)
    }
    for try await event in FileMonitor(watching: url) {
      FileHandle.standardOutput.write(Data("\(event)\n".utf8))  // unbuffered: one line per change
    }
  }
}
