import ArgumentParser
import Foundation
import Quire

/// `quire bookmark PATH --out FILE`.
struct MakeBookmark: QuireSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "bookmark",
    abstract: "Save a bookmark to a document, which keeps finding it after renames and moves.")

  @Argument(help: "The document.") var path: String
  @Option(help: "The file to write the bookmark to.") var out: String

  func execute() throws {
    let bookmark = try Bookmark(url: URL(fileURLWithPath: path))
    try FileWrapper(regularFileWithContents: bookmark.data).write(to: URL(fileURLWithPath: out))
    print(URL(fileURLWithPath: out).path)
  }
}

/// `quire resolve BOOKMARK-FILE`.
struct Resolve: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Print where a bookmarked document is now (and whether the bookmark is stale).")

  @Argument(help: "A file written by quire bookmark.") var bookmark: String
  @Option(name: .customLong("scope"), help: "A folder to search if the document moved; repeatable.")
  var scopes: [String] = []

  func execute() throws {
    let data: Data
    do { data = try Data(contentsOf: URL(fileURLWithPath: bookmark)) } catch {
      throw QuireError(
        .notFound, "Could not read the bookmark “\(bookmark)”; check the path.", path: bookmark)
    }
    let resolution = try Bookmark(data: data).resolve(
      searching: scopes.map { URL(fileURLWithPath: $0) }, index: .shared)
    print(resolution.url.path + (resolution.isStale ? " (stale: make the bookmark again)" : ""))
  }
}
