/// A content type known to a ``TypeRegistry``: the role of `UTType`.
///
/// Unlike a bare declaration, a content type knows every type it conforms to, directly or
/// through others, so ``conforms(to:)`` needs no registry.
public struct ContentType: Hashable, Sendable, CustomStringConvertible {
  /// The reverse-DNS identifier, such as `public.png`.
  public let identifier: String
  /// A description for people, such as "PNG image".
  public let localizedDescription: String
  /// Filename extensions without the dot, preferred first.
  public let filenameExtensions: [String]
  /// MIME types, preferred first.
  public let mimeTypes: [String]
  /// The types this type declares it conforms to directly.
  public let directSupertypes: [String]
  /// Every type this type conforms to, directly or transitively (not including itself).
  public let supertypes: Set<String>

  package init(_ declaration: ContentTypeDeclaration, supertypes: Set<String>) {
    identifier = declaration.identifier
    localizedDescription = declaration.description ?? declaration.identifier
    filenameExtensions = declaration.filenameExtensions
    mimeTypes = declaration.mimeTypes
    directSupertypes = declaration.conformsTo
    self.supertypes = supertypes
  }

  /// The first filename extension, if any.
  public var preferredFilenameExtension: String? { filenameExtensions.first }
  /// The first MIME type, if any.
  public var preferredMIMEType: String? { mimeTypes.first }

  /// Whether this type is `other` or conforms to it, directly or transitively.
  public func conforms(to other: ContentType) -> Bool { conforms(to: other.identifier) }

  /// Whether this type is the type with `identifier` or conforms to it.
  public func conforms(to identifier: String) -> Bool {
    self.identifier == identifier || supertypes.contains(identifier)
  }

  /// Whether documents of this type are packages (it conforms to `com.apple.package`).
  public var isPackage: Bool { conforms(to: "com.apple.package") }

  /// The identifier.
  public var description: String { identifier }
}
