import ArgumentParser
import Foundation
import Quire

/// `quire tag PATH +t -t`: shows or changes a document's tags.
struct Tag: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a document's tags, or add (+tag) and remove (-tag) them.",
    discussion:
      "Tags are stored in the freedesktop user.xdg.tags attribute, which file managers read too.")

  @Argument(help: "The document.") var path: String
  @Argument(parsing: .captureForPassthrough, help: "Changes such as +work -draft.") var changes:
    [String] = []

  func execute() throws {
    let url = URL(fileURLWithPath: path)
    guard FileManager.default.fileExists(atPath: url.path) else {
      throw QuireError(.notFound, "“\(url.path)” does not exist; check the path.", path: url.path)
    }
    var adding: [String] = []
    var removing: [String] = []
    for change in changes {
      if change.hasPrefix("+") {
        adding.append(String(change.dropFirst()))
      } else if change.hasPrefix("-") {
        removing.append(String(change.dropFirst()))
      } else {
        throw QuireError(
          .invalidName, "Write “+\(change)” to add the tag or “-\(change)” to remove it.")
      }
    }
    let coordinator = FileCoordinator()
    let tags =
      changes.isEmpty
      ? try coordinator.coordinate(
        readingItemAt: url, options: .immediatelyAvailableMetadataOnly
      ) { try Tags.tags(of: $0) }
      : try coordinator.coordinate(
        writingItemAt: url, options: .contentIndependentMetadataOnly
      ) { try Tags.update($0, adding: adding, removing: removing) }
    print(tags.joined(separator: ", "))
  }
}
