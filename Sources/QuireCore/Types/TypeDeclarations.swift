import Foundation

/// The type declarations an app ships: the content types it exports and imports and the document
/// types it opens — the document-type part of an Info.plist.
///
/// The file is JSON or a property list (XML or binary) with Apple's keys, so the declarations of
/// an existing iOS or macOS app can be used unchanged:
///
/// ```json
/// {
///   "UTExportedTypeDeclarations": [{
///     "UTTypeIdentifier": "net.gacha.mydoc",
///     "UTTypeDescription": "MyDoc Document",
///     "UTTypeConformsTo": ["com.apple.package", "public.composite-content"],
///     "UTTypeTagSpecification": {"public.filename-extension": ["mydoc"]}
///   }],
///   "CFBundleDocumentTypes": [{
///     "CFBundleTypeName": "MyDoc", "CFBundleTypeRole": "Editor", "LSHandlerRank": "Owner",
///     "LSItemContentTypes": ["net.gacha.mydoc"], "LSTypeIsPackage": true
///   }]
/// }
/// ```
public struct TypeDeclarations: Codable, Hashable, Sendable {
  /// Types the app defines (`UTExportedTypeDeclarations`).
  public var exportedTypes: [ContentTypeDeclaration]
  /// Types defined elsewhere that the app relies on (`UTImportedTypeDeclarations`).
  public var importedTypes: [ContentTypeDeclaration]
  /// Document types the app opens (`CFBundleDocumentTypes`).
  public var documentTypes: [DocumentTypeDeclaration]

  /// Makes a set of declarations.
  public init(
    exportedTypes: [ContentTypeDeclaration] = [], importedTypes: [ContentTypeDeclaration] = [],
    documentTypes: [DocumentTypeDeclaration] = []
  ) {
    self.exportedTypes = exportedTypes
    self.importedTypes = importedTypes
    self.documentTypes = documentTypes
  }

  /// Reads declarations from a JSON or property-list file.
  ///
  /// - Throws: ``QuireError`` with ``QuireError/Code-swift.struct/invalidDeclaration`` naming the
  ///   file and the problem, or the error of reading it.
  public init(contentsOf url: URL) throws(QuireError) {
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw QuireError(
        .notFound,
        "Could not read the type declarations “\(url.path)”; check that the file exists.",
        path: url.path, cause: error)
    }
    try self.init(data: data, path: url.path)
  }

  /// Decodes declarations from JSON or property-list bytes; `path` names them in errors.
  public init(data: Data, path: String = "type declarations") throws(QuireError) {
    do {
      let trimmed = data.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
      if trimmed.first == UInt8(ascii: "{") {
        self = try JSONDecoder().decode(TypeDeclarations.self, from: data)
      } else {
        self = try PropertyListDecoder().decode(TypeDeclarations.self, from: data)
      }
    } catch {
      throw QuireError(
        .invalidDeclaration,
        "The type declarations in “\(path)” are malformed: \(error). Fix the file and try again.",
        path: path, cause: error)
    }
  }

  private enum CodingKeys: String, CodingKey {
    case exportedTypes = "UTExportedTypeDeclarations"
    case importedTypes = "UTImportedTypeDeclarations"
    case documentTypes = "CFBundleDocumentTypes"
  }

  /// Decodes, with every list optional.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    exportedTypes =
      try container.decodeIfPresent([ContentTypeDeclaration].self, forKey: .exportedTypes) ?? []
    importedTypes =
      try container.decodeIfPresent([ContentTypeDeclaration].self, forKey: .importedTypes) ?? []
    documentTypes =
      try container.decodeIfPresent([DocumentTypeDeclaration].self, forKey: .documentTypes) ?? []
  }
}
