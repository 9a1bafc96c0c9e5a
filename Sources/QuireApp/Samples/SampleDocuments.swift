import Foundation
import Quire

/// Quire's sample document types (MyDoc, Text, Album, SimpleiCloudDocument): which class opens
/// which file.
public enum SampleDocuments {
  /// The sample kinds by the names the CLI accepts.
  public enum Kind: String, CaseIterable, Sendable {
    /// A MyDoc package (`.mydoc`).
    case mydoc
    /// A text file (`.txt`).
    case text
    /// An album package (`.album`).
    case album
    /// A SimpleiCloudDocument package of images (`.sicd`).
    case sicd

    /// The filename extension of new documents.
    public var filenameExtension: String {
      switch self {
      case .mydoc: "mydoc"
      case .text: "txt"
      case .album: "album"
      case .sicd: "sicd"
      }
    }

    /// The content type identifier.
    public var typeIdentifier: String {
      switch self {
      case .mydoc: MyDocDocument.typeIdentifier
      case .text: TextDocument.typeIdentifier
      case .album: AlbumDocument.typeIdentifier
      case .sicd: SimpleiCloudDocument.sicdTypeIdentifier
      }
    }

    /// The kind of document at `url`, by its extension.
    public init?(url: URL) {
      switch url.pathExtension.lowercased() {
      case "mydoc": self = .mydoc
      case "txt", "text", "md": self = .text
      case "album": self = .album
      case "sicd": self = .sicd
      default: return nil
      }
    }
  }

  /// A closed document of `kind` at `url`.
  @MainActor
  public static func document(_ kind: Kind, at url: URL) -> Document {
    switch kind {
    case .mydoc: MyDocDocument(fileURL: url)
    case .text: TextDocument(fileURL: url)
    case .album: AlbumDocument(fileURL: url)
    case .sicd: SimpleiCloudDocument(fileURL: url)
    }
  }

  /// A closed document for the file at `url`, chosen by its extension.
  @MainActor
  public static func document(at url: URL) throws(QuireError) -> Document {
    guard let kind = Kind(url: url) else {
      throw QuireError(
        .unknownType,
        "“\(url.lastPathComponent)” is not a MyDoc (.mydoc), text (.txt), album (.album) or SimpleiCloudDocument (.sicd) document.",
        path: url.path)
    }
    return document(kind, at: url)
  }
}
