import Foundation

/// A preview of a document: a PNG image, or an SVG (text documents render their first lines).
public enum Thumbnail: Sendable, Hashable, Codable {
  /// PNG bytes.
  case png(Data)
  /// SVG source.
  case svg(String)

  /// The file's bytes.
  public var data: Data {
    switch self {
    case .png(let data): data
    case .svg(let source): Data(source.utf8)
    }
  }

  /// `png` or `svg`.
  public var fileExtension: String {
    switch self {
    case .png: "png"
    case .svg: "svg"
    }
  }
}
