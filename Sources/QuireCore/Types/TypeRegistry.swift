import Foundation
import Synchronization

/// The content types an app knows: the system's (``TypeRegistry/systemDeclarations``) plus the
/// ones the app declares, with look-ups by identifier, filename extension and MIME type.
///
/// ```swift
/// let registry = TypeRegistry()
/// try registry.register(TypeDeclarations(contentsOf: declarationsURL))
/// let type = registry.type(forFilenameExtension: "mydoc")   // net.gacha.mydoc
/// type?.conforms(to: "com.apple.package")                   // true
/// ```
public final class TypeRegistry: Sendable {
  private struct Tables {
    var declarations: [String: ContentTypeDeclaration] = [:]
    /// Identifiers per lowercased extension / MIME type, the latest declaration first.
    var byExtension: [String: [String]] = [:]
    var byMIMEType: [String: [String]] = [:]
    var documentTypes: [DocumentTypeDeclaration] = []
    var order: [String] = []
  }

  private let tables = Mutex(Tables())

  /// A registry holding the system types, or none at all.
  public init(includingSystemTypes: Bool = true) {
    if includingSystemTypes { try? register(Self.systemDeclarations) }
  }

  /// Adds declarations. Types declared later win look-ups by extension and MIME type over
  /// earlier ones (an app's own types over the system's).
  ///
  /// - Throws: ``QuireError/Code-swift.struct/invalidDeclaration`` if an identifier or tag is
  ///   malformed or the conformance graph has a cycle; nothing is registered then.
  public func register(_ declarations: TypeDeclarations) throws(QuireError) {
    try tables.withLock { tables throws(QuireError) in
      var updated = tables
      for declaration in declarations.importedTypes + declarations.exportedTypes {
        try Self.validate(declaration)
        if updated.declarations[declaration.identifier] == nil {
          updated.order.append(declaration.identifier)
        }
        updated.declarations[declaration.identifier] = declaration
        for tag in declaration.filenameExtensions.map({ $0.lowercased() }) {
          updated.byExtension[tag, default: []].insert(declaration.identifier, at: 0)
        }
        for tag in declaration.mimeTypes.map({ $0.lowercased() }) {
          updated.byMIMEType[tag, default: []].insert(declaration.identifier, at: 0)
        }
      }
      for identifier in updated.order {
        var visiting: Set<String> = []
        _ = try Self.supertypes(of: identifier, in: updated.declarations, visiting: &visiting)
      }
      updated.documentTypes += declarations.documentTypes
      tables = updated
    }
  }

  /// The type with `identifier`, if known.
  public func type(withIdentifier identifier: String) -> ContentType? {
    tables.withLock { Self.resolve(identifier, in: $0) }
  }

  /// The type for a filename extension (with or without the dot, any case), if known.
  public func type(forFilenameExtension filenameExtension: String) -> ContentType? {
    let key =
      filenameExtension.hasPrefix(".") ? String(filenameExtension.dropFirst()) : filenameExtension
    return tables.withLock { tables in
      tables.byExtension[key.lowercased()]?.first.flatMap { Self.resolve($0, in: tables) }
    }
  }

  /// The type for a MIME type (any case, parameters ignored), if known.
  public func type(forMIMEType mimeType: String) -> ContentType? {
    let key =
      mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
    return tables.withLock { tables in
      tables.byMIMEType[key.lowercased()]?.first.flatMap { Self.resolve($0, in: tables) }
    }
  }

  /// The type of the item at `url`: by its extension when that is declared, otherwise
  /// `public.folder` for a folder, `public.symlink` for a link and `public.data` for a file.
  public func type(ofItemAt url: URL) -> ContentType? {
    if !url.pathExtension.isEmpty, let type = type(forFilenameExtension: url.pathExtension) {
      return type
    }
    let values = try? url.resourceValues(forKeys: [.isDirectoryKey, .isSymbolicLinkKey])
    if values?.isSymbolicLink == true { return type(withIdentifier: "public.symlink") }
    return type(withIdentifier: values?.isDirectory == true ? "public.folder" : "public.data")
  }

  /// Every known type that is or conforms to `identifier`, in declaration order.
  public func types(conformingTo identifier: String) -> [ContentType] {
    allTypes.filter { $0.conforms(to: identifier) }
  }

  /// Every known type, in declaration order.
  public var allTypes: [ContentType] {
    tables.withLock { tables in tables.order.compactMap { Self.resolve($0, in: tables) } }
  }

  /// The document types declared so far, in declaration order.
  public var documentTypes: [DocumentTypeDeclaration] { tables.withLock { $0.documentTypes } }

  /// The declared document type whose content types include `type` or a supertype of it.
  public func documentType(for type: ContentType) -> DocumentTypeDeclaration? {
    documentTypes.first { $0.contentTypes.contains(type.identifier) }
      ?? documentTypes.first { $0.contentTypes.contains(where: type.conforms(to:)) }
  }

  private static func resolve(_ identifier: String, in tables: Tables) -> ContentType? {
    guard let declaration = tables.declarations[identifier] else { return nil }
    var visiting: Set<String> = []
    let supertypes =
      (try? supertypes(of: identifier, in: tables.declarations, visiting: &visiting)) ?? []
    return ContentType(declaration, supertypes: supertypes)
  }

  private static func supertypes(
    of identifier: String, in declarations: [String: ContentTypeDeclaration],
    visiting: inout Set<String>
  ) throws(QuireError) -> Set<String> {
    guard visiting.insert(identifier).inserted else {
      throw QuireError(
        .invalidDeclaration,
        "The type “\(identifier)” conforms to itself through a cycle; fix its UTTypeConformsTo.")
    }
    defer { visiting.remove(identifier) }
    var result: Set<String> = []
    for parent in declarations[identifier]?.conformsTo ?? [] {
      result.insert(parent)
      result.formUnion(try supertypes(of: parent, in: declarations, visiting: &visiting))
    }
    return result
  }

  private static func validate(_ declaration: ContentTypeDeclaration) throws(QuireError) {
    let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-"))
    let identifier = declaration.identifier
    guard !identifier.isEmpty, identifier.unicodeScalars.allSatisfy(allowed.contains),
      !identifier.hasPrefix("."), !identifier.hasSuffix(".")
    else {
      throw QuireError(
        .invalidDeclaration,
        "“\(identifier)” is not a valid type identifier; use reverse-DNS form such as com.example.doc."
      )
    }
    for tag in declaration.filenameExtensions
    where tag.isEmpty || tag.contains("/") || tag.hasPrefix(".") {
      throw QuireError(
        .invalidDeclaration,
        "The type “\(identifier)” has an invalid filename extension “\(tag)”; write it without a dot."
      )
    }
  }
}
