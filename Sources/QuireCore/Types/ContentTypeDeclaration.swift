/// One declared content type, as written in a declaration file: the keys of an entry of
/// `UTExportedTypeDeclarations` / `UTImportedTypeDeclarations` in an app's Info.plist.
public struct ContentTypeDeclaration: Codable, Hashable, Sendable {
  /// The reverse-DNS identifier, such as `net.gacha.mydoc` (`UTTypeIdentifier`).
  public var identifier: String
  /// A description for people, such as "MyDoc Document" (`UTTypeDescription`).
  public var description: String?
  /// The types this type directly conforms to (`UTTypeConformsTo`).
  public var conformsTo: [String]
  /// Filename extensions without the dot, preferred first (`public.filename-extension`).
  public var filenameExtensions: [String]
  /// MIME types, preferred first (`public.mime-type`).
  public var mimeTypes: [String]

  /// Declares a type.
  public init(
    identifier: String, description: String? = nil, conformsTo: [String] = [],
    filenameExtensions: [String] = [], mimeTypes: [String] = []
  ) {
    self.identifier = identifier
    self.description = description
    self.conformsTo = conformsTo
    self.filenameExtensions = filenameExtensions
    self.mimeTypes = mimeTypes
  }

  private enum CodingKeys: String, CodingKey {
    case identifier = "UTTypeIdentifier"
    case description = "UTTypeDescription"
    case conformsTo = "UTTypeConformsTo"
    case tags = "UTTypeTagSpecification"
  }

  private enum TagKeys: String, CodingKey {
    case filenameExtension = "public.filename-extension"
    case mimeType = "public.mime-type"
  }

  /// Decodes an Info.plist-style entry. Tag values may be a string or a list, as in plists.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    identifier = try container.decode(String.self, forKey: .identifier)
    description = try container.decodeIfPresent(String.self, forKey: .description)
    conformsTo = try Self.strings(container, .conformsTo)
    if container.contains(.tags) {
      let tags = try container.nestedContainer(keyedBy: TagKeys.self, forKey: .tags)
      filenameExtensions = try Self.strings(tags, .filenameExtension)
      mimeTypes = try Self.strings(tags, .mimeType)
    } else {
      filenameExtensions = []
      mimeTypes = []
    }
  }

  /// Encodes in the Info.plist layout.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(identifier, forKey: .identifier)
    try container.encodeIfPresent(description, forKey: .description)
    try container.encode(conformsTo, forKey: .conformsTo)
    var tags = container.nestedContainer(keyedBy: TagKeys.self, forKey: .tags)
    try tags.encode(filenameExtensions, forKey: .filenameExtension)
    try tags.encode(mimeTypes, forKey: .mimeType)
  }

  private static func strings<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, _ key: Key)
    throws -> [String]
  {
    if let single = try? container.decode(String.self, forKey: key) { return [single] }
    return try container.decodeIfPresent([String].self, forKey: key) ?? []
  }
}
