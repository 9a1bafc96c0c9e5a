import Foundation
import Quire

/// The seed's MyDoc document (`net.gacha.mydoc`, `.mydoc`): a package holding an optional
/// `image.png` and an optional UTF-8 `text.txt`, exactly as the seed's iOS app reads and writes
/// it. A missing file means an empty property. Edits go through the undo manager.
@MainActor
public final class MyDocDocument: Document {
  /// The content type identifier.
  public nonisolated static let typeIdentifier = "net.gacha.mydoc"

  /// The text (`text.txt`), or nil when the package has none.
  public private(set) var text: String?
  /// The image's PNG (or JPEG) bytes (`image.png`), or nil when the package has none.
  public private(set) var image: Data?

  private var package = FileWrapper(directoryWithFileWrappers: [:])
  private var textChanged = false
  private var imageChanged = false

  /// A MyDoc document at `fileURL`.
  public init(fileURL: URL, clock: any Clock<Duration> = ContinuousClock()) {
    super.init(fileURL: fileURL, fileType: Self.typeIdentifier, clock: clock)
  }

  /// Replaces the text (nil removes `text.txt`); undoable as "Typing".
  public func setText(_ newValue: String?) {
    let old = text
    text = newValue
    textChanged = true
    undoManager.registerUndo(withTarget: self) { $0.setText(old) }
    undoManager.setActionName("Typing")
  }

  /// Replaces the image (nil removes `image.png`); undoable as "Change Image".
  public func setImage(_ newValue: Data?) {
    let old = image
    image = newValue
    imageChanged = true
    undoManager.registerUndo(withTarget: self) { $0.setImage(old) }
    undoManager.setActionName("Change Image")
  }

  /// Reads the package off the main actor, bringing `text.txt` and `image.png` here first when
  /// they are in the cloud (a large member arrives on its own): the download never holds the
  /// main actor, and it counts as the open's ``Document/progress``. Other members stay where
  /// they are until read.
  public override func read(from url: URL) async throws {
    let wrapper = try await performAsynchronousFileAccess {
      let wrapper = try FileWrapper(url: url)
      for name in ["text.txt", "image.png"] {
        guard let member = wrapper.fileWrappers?[name], member.isInCloud else { continue }
        _ = try member.contents()
      }
      return wrapper
    }
    try load(fromContents: .fileWrapper(wrapper), ofType: fileType)
  }

  public override func load(fromContents contents: DocumentContents, ofType typeName: String?)
    throws
  {
    guard case .fileWrapper(let wrapper) = contents, wrapper.isDirectory else {
      throw QuireError(
        .wrongKind, "A MyDoc document is a package (a folder), but this is a single file.")
    }
    let children = wrapper.fileWrappers ?? [:]
    if let member = children["text.txt"] {
      guard let decoded = String(validating: try member.copyOfContents(), as: UTF8.self) else {
        throw QuireError(.corruptDocument, "Its text.txt is not valid UTF-8 text.")
      }
      text = decoded
    } else {
      text = nil
    }
    image = try children["image.png"]?.copyOfContents()
    package = wrapper
    textChanged = false
    imageChanged = false
  }

  public override func contents(forType typeName: String) throws -> DocumentContents {
    if textChanged {
      try replace("text.txt", with: text.map { Data($0.utf8) })
      textChanged = false
    }
    if imageChanged {
      try replace("image.png", with: image)
      imageChanged = false
    }
    return .fileWrapper(package)
  }

  public override func fileAttributesToWrite(to url: URL, for saveOperation: SaveOperation) throws
    -> DocumentFileAttributes
  {
    DocumentFileAttributes(thumbnail: try thumbnail())
  }

  /// The document's preview, a PNG as Apple's `QuickLook/Thumbnail.png` convention wants: its
  /// image scaled to 256 pixels, or else the shape of its text.
  public func thumbnail() throws -> Thumbnail? {
    if let image { return .png(try RasterImage(decoding: image).scaled(toFit: 256).pngData()) }
    if let text { return try TextPreview.png(text) }
    return nil
  }

  private func replace(_ name: String, with data: Data?) throws {
    if let old = package.fileWrappers?[name] { package.removeFileWrapper(old) }
    if let data { try package.addRegularFile(withContents: data, preferredFilename: name) }
  }
}
