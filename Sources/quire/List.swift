import ArgumentParser
import Foundation
import Quire

/// `quire ls [SCOPE…]`: the documents in folders, from a live DocumentQuery.
struct List: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    commandName: "ls",
    abstract: "List the documents in folders (and, with --watch, follow changes as they happen).",
    discussion: """
      Packages are listed as single documents; folders are listed and searched. Each line: \
      modification date, size, type, path, [tags]. With --watch, later lines say what changed: \
      "+ PATH" (appeared), "- PATH" (went away), "~ PATH" (changed), "> OLD -> NEW" (moved).
      """)

  @Argument(help: "Folders to search (default: the current folder).") var scopes: [String] = []
  @Option(help: "Only documents of this type or a type conforming to it (public.image, mydoc).")
  var type: String?
  @Option(help: "Only names matching this wildcard pattern, ignoring case (*.mydoc).")
  var name: String?
  @Option(help: "Only documents with this tag.") var tag: String?
  @Option(help: "Sort by name, date (newest first) or size (largest first).") var sort = "name"
  @Flag(help: "Keep running and print changes as they happen.") var watch = false
  @OptionGroup var types: TypeOptions

  @MainActor
  func execute() async throws {
    let registry = try types.registry()
    let folders = (scopes.isEmpty ? ["."] : scopes).map { URL(fileURLWithPath: $0) }
    for folder in folders {
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory),
        isDirectory.boolValue
      else {
        throw QuireError(
          .notFound, "“\(folder.path)” is not a folder; give folders to list.", path: folder.path)
      }
    }
    var predicates: [DocumentQuery.Predicate] = []
    if let type {
      let identifier =
        registry.type(withIdentifier: type)?.identifier
        ?? registry.type(forFilenameExtension: type)?.identifier
      guard let identifier else {
        throw QuireError(
          .unknownType, "No type is known as “\(type)”; see `quire types` for the known ones.")
      }
      predicates.append(.conforms(to: identifier))
    }
    if let name { predicates.append(.nameLike(name)) }
    if let tag { predicates.append(.tagged(tag)) }
    let descriptor: DocumentQuery.SortDescriptor
    switch sort {
    case "name": descriptor = .init(.name)
    case "date": descriptor = .init(.modificationDate, ascending: false)
    case "size": descriptor = .init(.size, ascending: false)
    default:
      throw QuireError(.invalidName, "Sort by “name”, “date” or “size”, not “\(sort)”.")
    }
    let query = DocumentQuery(
      scopes: folders, predicate: predicates.isEmpty ? .all : .and(predicates),
      sortDescriptors: [descriptor], notificationBatchingInterval: .milliseconds(50),
      registry: registry)
    let progress = ProgressLine()
    for await results in query.results() {
      switch results.phase {
      case .gathering(let found): progress.show("gathering… \(found) found")
      case .gathered:
        progress.clear()
        for item in results.items { say(Self.line(for: item)) }
        if !watch { return }
      case .updated:
        for item in results.removed { say("- \(item.path)") }
        for move in results.moved { say("> \(move.from.path) -> \(move.item.path)") }
        for item in results.added { say("+ \(Self.line(for: item))") }
        for item in results.changed { say("~ \(Self.line(for: item))") }
      }
    }
  }

  private func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))  // unbuffered, for --watch
  }

  static func line(for item: DocumentQuery.Item) -> String {
    let date = item.modificationDate.formatted(
      .iso8601.year().month().day().time(includingFractionalSeconds: false))
    let size = item.isFolder ? "-" : formatBytes(item.size)
    let tags = item.tags.isEmpty ? "" : "  [" + item.tags.joined(separator: ", ") + "]"
    return "\(date)  \(size)  \(item.contentType)  \(item.path)\(tags)"
  }
}
