import ArgumentParser
import Foundation
import Quire
import QuireApp

/// `quire show PATH`: a document's content summary.
struct Show: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Show a MyDoc, text or album document's contents.")

  @Argument(help: "The document.") var path: String

  @MainActor
  func execute() async throws {
    let document = try SampleDocuments.document(at: URL(fileURLWithPath: path))
    try await document.open()
    try? RecentDocuments.shared.noteOpened(document.fileURL)
    defer { Task { try? await document.close() } }
    print("\(document.localizedName) (\(document.fileType ?? "unknown type"))")
    if document.documentState.contains(.editingDisabled) { print("  read-only") }
    switch document {
    case let mydoc as MyDocDocument:
      if let image = mydoc.image {
        let size =
          (try? RasterImage(decoding: image)).map { "\($0.width)×\($0.height)" }
          ?? "not a PNG or JPEG"
        print("  image: \(image.count) bytes, \(size)")
      } else {
        print("  image: none")
      }
      print("  text:  " + (mydoc.text.map { Self.excerpt($0) } ?? "none"))
    case let text as TextDocument:
      print(
        "  \(text.text.split(separator: "\n", omittingEmptySubsequences: false).count) lines, \(text.text.count) characters"
      )
      print("  " + Self.excerpt(text.text))
    case let album as AlbumDocument:
      print("  \(album.imageNames.count) images")
      for name in album.imageNames.prefix(20) { print("  " + name) }
      if album.imageNames.count > 20 { print("  … and \(album.imageNames.count - 20) more") }
    default:
      break
    }
  }

  static func excerpt(_ text: String) -> String {
    let firstLines = text.split(separator: "\n", omittingEmptySubsequences: false).prefix(3).joined(
      separator: " ⏎ ")
    return firstLines.count > 120 ? String(firstLines.prefix(119)) + "…" : firstLines
  }
}

/// `quire edit PATH …`: one undoable change, saved through the document.
struct Edit: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Make one undoable change to a document and save it.",
    discussion:
      "Give exactly one of the options. --text works on MyDoc and text documents, --image on MyDoc, --add-image and --remove-image on albums."
  )

  @Argument(help: "The document.") var path: String
  @Option(help: "Replace the text.") var text: String?
  @Option(help: "Replace a MyDoc's image with this PNG or JPEG file.") var image: String?
  @Option(help: "Add this image file to an album.") var addImage: String?
  @Option(help: "Remove the image with this name from an album.") var removeImage: String?

  func validate() throws {
    let given = [text, image, addImage, removeImage].compactMap { $0 }.count
    guard given == 1 else {
      throw ValidationError("Give exactly one of --text, --image, --add-image, --remove-image.")
    }
  }

  @MainActor
  func execute() async throws {
    let url = URL(fileURLWithPath: path)
    AppConfiguration.registerVersionStores(library: AppConfiguration.defaultLibrary)
    let document = try SampleDocuments.document(at: url)
    try await document.open()
    try? RecentDocuments.shared.noteOpened(document.fileURL)
    guard !document.documentState.contains(.editingDisabled) else {
      throw QuireError(
        .permissionDenied, "“\(url.path)” is read-only; it was not changed.", path: url.path)
    }
    switch (document, text, image, addImage, removeImage) {
    case (let mydoc as MyDocDocument, let text?, _, _, _): mydoc.setText(text)
    case (let plain as TextDocument, let text?, _, _, _): plain.setText(text)
    case (let mydoc as MyDocDocument, _, let image?, _, _):
      let data = try Self.read(image)
      _ = try RasterImage(decoding: data)
      mydoc.setImage(data)
    case (let album as AlbumDocument, _, _, let file?, _):
      let data = try Self.read(file)
      guard data.starts(with: [0x89, 0x50, 0x4E, 0x47]) || data.starts(with: [0xFF, 0xD8]) else {
        throw QuireError(
          .corruptDocument, "“\(file)” is not a PNG or JPEG image; it was not added.", path: file)
      }
      print(
        "added "
          + (try album.addImage(data, preferredName: URL(fileURLWithPath: file).lastPathComponent)))
    case (let album as AlbumDocument, _, _, _, let name?): try album.removeImage(named: name)
    default:
      throw QuireError(
        .unsupported,
        "That change does not apply to “\(url.lastPathComponent)”; see quire edit --help.")
    }
    document.undoManager.endEvent()
    let action = document.undoManager.undoActionName
    try await document.close()
    print("saved \(document.fileURL.path)" + (action.isEmpty ? "" : " (undoable: \(action))"))
  }

  static func read(_ path: String) throws(QuireError) -> Data {
    do { return try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
      throw QuireError(
        .notFound, "Could not read “\(path)”; check the path.", path: path, cause: error)
    }
  }
}

/// `quire thumbnail PATH --out FILE.png`.
struct Thumbnail: QuireDocumentSubcommand {
  static let configuration = CommandConfiguration(
    abstract: "Write a document's thumbnail as a PNG (or SVG) file.")

  @Argument(help: "The document.") var path: String
  @Option(help: "The image to write: FILE.png, or FILE.svg for a text preview.") var out: String

  @MainActor
  func execute() async throws {
    let document = try SampleDocuments.document(at: URL(fileURLWithPath: path))
    try await document.open()
    let wantsSVG = out.lowercased().hasSuffix(".svg")
    var thumbnail: Quire.Thumbnail?
    switch document {
    case let mydoc as MyDocDocument:
      thumbnail = try mydoc.thumbnail()
      if wantsSVG, mydoc.image == nil, let text = mydoc.text { thumbnail = TextPreview.svg(text) }
    case let text as TextDocument:
      thumbnail = wantsSVG ? TextPreview.svg(text.text) : try TextPreview.png(text.text)
    case let album as AlbumDocument:
      if let first = album.imageNames.first {
        thumbnail = .png(
          try RasterImage(decoding: await album.image(named: first)).scaled(toFit: 256).pngData())
      }
    default: break
    }
    guard let thumbnail else {
      throw QuireError(
        .notFound, "“\(document.localizedName)” is empty; it has no thumbnail.", path: path)
    }
    try FileWrapper(regularFileWithContents: thumbnail.data).write(to: URL(fileURLWithPath: out))
    print(URL(fileURLWithPath: out).path)
  }
}
