import Foundation
import Quire

/// Thumbnails the app makes itself for documents that carry none: a package that arrived
/// without its `QuickLook` folder (imported, copied in), and flat text files, whose look is
/// their contents. Made from the document's own members off the caller's actor, kept in memory
/// by path and modification time (so a changed document is drawn again), at most `capacity`.
actor GeneratedThumbnails {
  private struct Key: Hashable {
    var path: String
    var modified: Date
    var size: Int64
  }

  private var entries: [Key: Thumbnail] = [:]
  private var order: [Key] = []
  private let capacity: Int

  init(capacity: Int = 2_000) { self.capacity = capacity }

  /// The thumbnail of the document at `url` (modified at `modified`), or nil if it has nothing
  /// to draw.
  func thumbnail(for url: URL, modified: Date, size: Int64) async -> Thumbnail? {
    let key = Key(path: url.path, modified: modified, size: size)
    if let cached = entries[key] { return cached }
    let made = await Task.detached(priority: .utility) { Self.make(url) }.value
    guard let made else { return nil }
    entries[key] = made
    order.append(key)
    if order.count > capacity { entries[order.removeFirst()] = nil }
    return made
  }

  /// Draws the thumbnail of the document at `url` (any place: a kept version too).
  static func make(_ url: URL) -> Thumbnail? {
    var result: Thumbnail?
    try? FileCoordinator().coordinate(readingItemAt: url) { url in
      switch SampleDocuments.Kind(url: url) {
      case .mydoc:
        if let image = try? Data(contentsOf: url.appendingPathComponent("image.png")) {
          result = try? .png(RasterImage(decoding: image).scaled(toFit: 256).pngData())
        } else if let text = try? String(
          contentsOf: url.appendingPathComponent("text.txt"), encoding: .utf8)
        {
          result = TextPreview.svg(text, lines: 8)
        }
      case .album, .sicd:
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        for name in names.sorted() where !name.hasPrefix(".") {
          guard let data = try? Data(contentsOf: url.appendingPathComponent(name)),
            let image = try? RasterImage(decoding: data)
          else { continue }
          result = try? .png(image.scaled(toFit: 256).pngData())
          break
        }
      case .text:
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        let head = try handle.read(upToCount: 4096) ?? Data()
        // Its first lines, as text the browser draws (a page of grey bars said nothing).
        result = TextPreview.svg(String(decoding: head, as: UTF8.self), lines: 8)
      case nil:
        break
      }
    }
    return result
  }
}
