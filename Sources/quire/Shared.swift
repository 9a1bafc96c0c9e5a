import ArgumentParser
import Foundation
import QuireSync
import QuireSyncProtocol

/// `quire shared`: the documents other accounts share with this device's account.
struct Shared: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "List the documents other accounts share with you (\"Shared with me\").")

  @Flag(help: "Print JSON.") var json = false

  @MainActor
  func execute() async throws {
    guard let settings = try SyncSettings.load() else {
      throw SyncError(
        .unauthorized, "This device is not signed in: run quire sync login URL --user NAME.")
    }
    let client = SyncClient(
      server: settings.server, token: settings.token, container: settings.container,
      http: try TrustedHTTPClient.trusting(settings.certificateAuthority))
    let shares = try await client.sharedWithMe()
    if json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
      print(String(decoding: try encoder.encode(ShareList(shares: shares)), as: UTF8.self))
    } else if shares.isEmpty {
      print("Nothing is shared with you.")
    } else {
      for share in shares {
        let name = share.isFolder ? "\(share.name)/ (a folder)" : share.name
        print("\(name) from \(share.owner) (\(Share.describe(share.role)))")
      }
    }
  }
}
