import ArgumentParser
import Foundation
import QuireSync
import QuireSyncProtocol

/// `quire share PATH [--public]`: a synced document's public read-only link — made with
/// `--public`, shown without.
struct Share: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a synced document's sharing, or make a public read-only link to it.",
    discussion: """
      A public link opens in any browser without an account: a read-only page with the \
      document's thumbnail, name and contents (a package downloads as a zip archive). Anyone \
      with the link can see the document until you revoke it with quire unshare PATH --public.
      """)

  @Argument(help: "The synced document.") var path: String
  @Flag(help: "Make a public read-only link (or print the one it has).") var `public` = false

  @MainActor
  func execute() async throws {
    let (client, item) = try ShareTarget.resolve(path)
    if `public` {
      let link = try await client.makePublicLink(item: item)
      print(link.url(on: client.server).absoluteString)
    } else if let link = try await client.publicLink(item: item) {
      print("Public link (read-only): \(link.url(on: client.server).absoluteString)")
    } else {
      print("Not shared.")
    }
  }
}

/// `quire unshare PATH --public`: revokes the document's public link.
struct Unshare: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Revoke a synced document's public link: its address stops working at once.")

  @Argument(help: "The synced document.") var path: String
  @Flag(help: "Revoke the public link.") var `public` = false

  func validate() throws {
    guard `public` else { throw ValidationError("Say what to revoke: --public.") }
  }

  @MainActor
  func execute() async throws {
    let (client, item) = try ShareTarget.resolve(path)
    try await client.revokePublicLink(item: item)
    print("Revoked the public link of \(path).")
  }
}

/// The server and item behind a synced document's path.
enum ShareTarget {
  static func resolve(_ path: String) throws -> (SyncClient, String) {
    let url = URL(fileURLWithPath: path).standardizedFileURL
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw SyncError(.notFound, "There is no document at “\(url.path)”.")
    }
    return try SyncVersionStore(folder: url.deletingLastPathComponent()).syncedItem(at: url)
  }
}
