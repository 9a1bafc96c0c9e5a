import ArgumentParser
import Foundation
import Quire

/// `quire recent`: the recently opened documents.
struct Recent: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract:
      "List the documents opened recently (by show and edit), most recent first, where they are now."
  )

  @Option(
    name: .customLong("scope"), help: "A folder to search for documents that moved; repeatable.")
  var scopes: [String] = []

  func execute() throws {
    for url in try RecentDocuments.shared.documents(
      searching: scopes.map { URL(fileURLWithPath: $0) })
    {
      print(url.path)
    }
  }
}
