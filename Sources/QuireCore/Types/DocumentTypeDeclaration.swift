/// A document type an app opens: an entry of `CFBundleDocumentTypes` in an app's Info.plist.
public struct DocumentTypeDeclaration: Codable, Hashable, Sendable {
  /// What the app does with documents of this type (`CFBundleTypeRole`).
  public enum Role: String, Codable, Hashable, Sendable {
    /// The app creates and edits such documents.
    case editor = "Editor"
    /// The app only shows them.
    case viewer = "Viewer"
    /// The app declares the type but neither opens nor edits it.
    case none = "None"
  }

  /// How strongly the app claims the type (`LSHandlerRank`).
  public enum Rank: String, Codable, Hashable, Sendable {
    /// The app owns the type: it is the one that creates it.
    case owner = "Owner"
    /// The app is a default handler.
    case `default` = "Default"
    /// The app can open it, but is not preferred.
    case alternate = "Alternate"
    /// The app never opens it unless asked.
    case none = "None"
  }

  /// A name for people, such as "MyDoc" (`CFBundleTypeName`).
  public var name: String
  /// The content types of this document type (`LSItemContentTypes`).
  public var contentTypes: [String]
  /// The app's role.
  public var role: Role
  /// The app's rank.
  public var rank: Rank
  /// Whether documents of this type are packages (`LSTypeIsPackage`).
  public var isPackage: Bool

  /// Declares a document type.
  public init(
    name: String, contentTypes: [String], role: Role = .editor, rank: Rank = .default,
    isPackage: Bool = false
  ) {
    self.name = name
    self.contentTypes = contentTypes
    self.role = role
    self.rank = rank
    self.isPackage = isPackage
  }

  private enum CodingKeys: String, CodingKey {
    case name = "CFBundleTypeName"
    case contentTypes = "LSItemContentTypes"
    case role = "CFBundleTypeRole"
    case rank = "LSHandlerRank"
    case isPackage = "LSTypeIsPackage"
  }

  /// Decodes an Info.plist-style entry; role defaults to Editor, rank to Default.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    name = try container.decode(String.self, forKey: .name)
    contentTypes = try container.decode([String].self, forKey: .contentTypes)
    role = try container.decodeIfPresent(Role.self, forKey: .role) ?? .editor
    rank = try container.decodeIfPresent(Rank.self, forKey: .rank) ?? .default
    isPackage = try container.decodeIfPresent(Bool.self, forKey: .isPackage) ?? false
  }
}
