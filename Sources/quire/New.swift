import ArgumentParser
import Foundation
import Quire
import QuireApp

/// `quire new TYPE PATH`: a new, empty document.
struct New: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Create a new document: mydoc, text, album, or any declared type.",
    discussion: """
      The document is written in a temporary place, then moved to PATH; if that name is taken it \
      gets a unique one (Document 2.mydoc). TYPE is a sample kind (mydoc, text, album, sicd), a type \
      identifier (net.gacha.mydoc), a filename extension or a document type name.
      """)

  @Argument(help: "The document type.") var type: String
  @Argument(help: "Where to create it; the type's extension is added if missing.") var path: String
  @OptionGroup var types: TypeOptions

  @MainActor
  func execute() async throws {
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
    let sample = SampleDocuments.Kind.allCases.first { $0.typeIdentifier == contentType.identifier }
    let created = try await Document.createDocument(
      named: url.lastPathComponent, in: url.deletingLastPathComponent()
    ) {
      temporary in
      if let sample { return SampleDocuments.document(sample, at: temporary) }
      return EmptyDocument(
        fileURL: temporary, fileType: contentType.identifier, isPackage: contentType.isPackage)
    }
    print(created.path)
  }

  /// Finds a type by sample kind, identifier, extension or document type name.
  static func resolve(_ name: String, in registry: TypeRegistry) throws -> ContentType {
    if let kind = SampleDocuments.Kind(rawValue: name.lowercased()),
      let type = registry.type(withIdentifier: kind.typeIdentifier)
    {
      return type
    }
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

/// An empty document of a declared type that has no document class: an empty package or file.
final class EmptyDocument: Document {
  private let isPackage: Bool

  init(fileURL: URL, fileType: String, isPackage: Bool) {
    self.isPackage = isPackage
    super.init(fileURL: fileURL, fileType: fileType)
  }

  override func contents(forType typeName: String) throws -> DocumentContents {
    isPackage ? .fileWrapper(FileWrapper(directoryWithFileWrappers: [:])) : .data(Data())
  }
}
