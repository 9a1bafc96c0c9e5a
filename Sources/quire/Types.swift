import ArgumentParser
import Quire

/// `quire types`: the type registry.
struct Types: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "List the known content types and document types.")

  @OptionGroup var types: TypeOptions

  func execute() throws {
    let registry = try types.registry()
    print("Content types:")
    let rows = registry.allTypes.map { type in
      [
        type.identifier, type.filenameExtensions.map { "." + $0 }.joined(separator: " "),
        type.mimeTypes.joined(separator: " "), type.isPackage ? "package" : "",
        type.directSupertypes.joined(separator: ", "),
      ]
    }
    let widths = (0..<4).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let padded = (0..<4).map {
        row[$0].padding(toLength: widths[$0], withPad: " ", startingAt: 0)
      }
      print("  " + padded.joined(separator: "  ") + "  conforms to: " + row[4])
    }
    print("Document types:")
    for document in registry.documentTypes {
      print(
        "  \(document.name): \(document.contentTypes.joined(separator: ", ")) (\(document.role.rawValue), \(document.rank.rawValue)\(document.isPackage ? ", package" : ""))"
      )
    }
  }
}
