import ArgumentParser
import Foundation
import Quire

/// `quire new TYPE PATH`: an empty document of a declared type.
struct New: QuireSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Create an empty document: a package or a single file of a declared type.",
    discussion:
      "TYPE is an identifier (net.gacha.mydoc), a filename extension (mydoc) or a document type name (MyDoc)."
  )

  @Argument(help: "The document type.") var type: String
  @Argument(help: "Where to create it; the type's extension is added if missing.") var path: String
  @OptionGroup var types: TypeOptions

  func execute() throws {
    let registry = try types.registry()
    let contentType = try Self.resolve(type, in: registry)
    guard let fileExtension = contentType.preferredFilenameExtension else {
      throw QuireError(
        .unknownType,
        "The type “\(contentType.identifier)” has no filename extension, so no document of it can be created."
      )
    }
    var url = URL(fileURLWithPath: path)
    if !contentType.filenameExtensions.contains(url.pathExtension.lowercased()) {
      url.appendPathExtension(fileExtension)
    }
    if FileManager.default.fileExists(atPath: url.path) {
      throw QuireError(
        .alreadyExists, "“\(url.path)” already exists; choose another name.", path: url.path)
    }
    let wrapper =
      contentType.isPackage
      ? FileWrapper(directoryWithFileWrappers: [:]) : FileWrapper(regularFileWithContents: Data())
    try wrapper.write(to: url)
    print(url.path)
  }

  /// Finds a type by identifier, extension or document type name.
  static func resolve(_ name: String, in registry: TypeRegistry) throws -> ContentType {
    if let type = registry.type(withIdentifier: name) ?? registry.type(forFilenameExtension: name) {
      return type
    }
    if let document = registry.documentTypes.first(where: {
      $0.name.lowercased() == name.lowercased()
    }),
      let identifier = document.contentTypes.first,
      let type = registry.type(withIdentifier: identifier)
    {
      return type
    }
    throw QuireError(
      .unknownType,
      "No type “\(name)” is declared; `quire types` lists them, --declarations FILE adds more.")
  }
}
