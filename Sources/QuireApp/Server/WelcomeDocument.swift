import Foundation
import Quire

/// The document a new library starts with.
enum WelcomeDocument {
  static let text = """
    Welcome to Quire.

    This library is a folder on your disk; everything here is a plain file or package that other \
    programs can read. Create documents with “+”, open one to edit it, and it saves itself. \
    Changes made by other programs show up here at once.
    """

  /// A 256 × 256 picture: a page on a warm gradient.
  static func image() -> RasterImage {
    let side = 256
    var pixels = [UInt8](repeating: 255, count: side * side * 4)
    for y in 0..<side {
      for x in 0..<side {
        let offset = (y * side + x) * 4
        let onPage = x >= 64 && x < 192 && y >= 40 && y < 216
        let line = onPage && y >= 72 && y < 200 && (y - 72) % 16 < 4 && x >= 80 && x < 176
        if line {
          pixels[offset] = 120
          pixels[offset + 1] = 120
          pixels[offset + 2] = 130
        } else if !onPage {
          pixels[offset] = UInt8(200 + x * 40 / side)
          pixels[offset + 1] = UInt8(150 + y * 60 / side)
          pixels[offset + 2] = 110
        }
      }
    }
    return RasterImage(width: side, height: side, pixels: pixels)
  }

  @MainActor
  static func create(in folder: URL) async throws(QuireError) {
    _ = try await Document.createDocument(named: "Welcome.mydoc", in: folder) { url in
      let document = MyDocDocument(fileURL: url)
      document.setText(text)
      document.setImage(try? image().pngData())
      return document
    }
  }
}
