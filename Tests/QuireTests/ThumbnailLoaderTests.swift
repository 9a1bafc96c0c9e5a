import Foundation
import Testing

@testable import Quire
@testable import QuireApp

@Suite("Thumbnail loader")
struct ThumbnailLoaderTests {
  /// A MyDoc package whose saved thumbnail shows an image of the given size.
  @MainActor
  static func package(in folder: TemporaryDirectory, named name: String, width: Int) async throws
    -> URL
  {
    let url = folder.file(name)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    let document = MyDocDocument(fileURL: url)
    try await document.open()
    document.setImage(try DocumentTests.png(width: width, height: 100))
    document.undoManager.endEvent()
    try await document.close()
    return url
  }

  @Test("a placeholder comes at once, then the real thumbnail; the second time memory serves it")
  func placeholderThenReal() async throws {
    let folder = try TemporaryDirectory()
    let package = try await Self.package(in: folder, named: "A.mydoc", width: 400)
    let loader = ThumbnailLoader(cache: ThumbnailCache(folder: folder.file(".cache")))
    var received: [Thumbnail] = []
    for await thumbnail in loader.thumbnails(for: package) { received.append(thumbnail) }
    #expect(received.count == 2 && received[0] == loader.placeholder)
    let real = try RasterImage(decoding: received[1].data)
    #expect(real.width == 256 && real.height == 64)
    var again: [Thumbnail] = []
    for await thumbnail in loader.thumbnails(for: package) { again.append(thumbnail) }
    #expect(again == [received[1]], "memory answers at once, without a placeholder")
  }

  @Test("a changed document is not shown with its old thumbnail")
  @MainActor
  func invalidation() async throws {
    let folder = try TemporaryDirectory()
    let package = try await Self.package(in: folder, named: "A.mydoc", width: 400)
    let loader = ThumbnailLoader(cache: ThumbnailCache(folder: folder.file(".cache")))
    let before = try #require(await loader.thumbnail(for: package))
    let document = MyDocDocument(fileURL: package)
    try await document.open()
    document.setImage(try DocumentTests.png(width: 100, height: 100))
    document.undoManager.endEvent()
    try await document.close()
    let after = try #require(await loader.thumbnail(for: package))
    #expect(after != before)
    let decoded = try RasterImage(decoding: after.data)
    #expect(decoded.width == 100 && decoded.height == 100, "a small image is not scaled up")
  }

  @Test("memory stays within the byte budget, dropping the least recently used")
  func budget() async throws {
    let folder = try TemporaryDirectory()
    var packages: [URL] = []
    for index in 0..<4 {
      packages.append(
        try await Self.package(in: folder, named: "\(index).mydoc", width: 200 + index * 50))
    }
    let sizes = try packages.map {
      try Data(contentsOf: $0.appendingPathComponent("QuickLook/Thumbnail.png")).count
    }
    let budget = sizes[0] + sizes[1] + sizes[2] - 1  // room for two or three, never four
    let loader = ThumbnailLoader(
      byteBudget: budget, cache: ThumbnailCache(folder: folder.file(".cache")))
    for package in packages { _ = await loader.thumbnail(for: package) }
    #expect(await loader.memoryUsage <= budget)
    // The first was used least recently: it comes back through a placeholder.
    var first: [Thumbnail] = []
    for await thumbnail in loader.thumbnails(for: packages[0]) { first.append(thumbnail) }
    #expect(first.first == loader.placeholder)
    var last: [Thumbnail] = []
    for await thumbnail in loader.thumbnails(for: packages[3]) { last.append(thumbnail) }
    #expect(last.count == 1 && last[0] != loader.placeholder, "the newest stayed in memory")
  }

  @Test("single-file documents use the thumbnail cache; none yet gives only the placeholder")
  @MainActor
  func flatFiles() async throws {
    let folder = try TemporaryDirectory()
    let cache = ThumbnailCache(folder: folder.file(".cache"))
    let file = folder.file("notes.txt")
    try Disk.write("first line", to: file)
    let loader = ThumbnailLoader(cache: cache)
    var none: [Thumbnail] = []
    for await thumbnail in loader.thumbnails(for: file) { none.append(thumbnail) }
    #expect(none == [loader.placeholder])
    let document = TextDocument(fileURL: file)
    document.thumbnailCache = cache
    try await document.open()
    document.setText("hello thumbnails")
    document.undoManager.endEvent()
    try await document.close()
    #expect(await loader.thumbnail(for: file) == TextPreview.svg("hello thumbnails"))
  }
}
