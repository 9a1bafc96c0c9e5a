import Foundation
import Quire

/// The Document Browser sample's text document (`public.plain-text`, `.txt`): one UTF-8 file.
@MainActor
public final class TextDocument: Document {
  /// The content type identifier.
  public nonisolated static let typeIdentifier = "public.plain-text"

  /// The text.
  public private(set) var text = ""

  /// A text document at `fileURL`.
  public init(fileURL: URL, clock: any Clock<Duration> = ContinuousClock()) {
    super.init(fileURL: fileURL, fileType: Self.typeIdentifier, clock: clock)
  }

  /// Replaces the text; undoable as "Typing".
  public func setText(_ newValue: String) {
    let old = text
    text = newValue
    undoManager.registerUndo(withTarget: self) { $0.setText(old) }
    undoManager.setActionName("Typing")
  }

  public override func load(fromContents contents: DocumentContents, ofType typeName: String?)
    throws
  {
    guard case .data(let data) = contents else {
      throw QuireError(.wrongKind, "A text document is a single file, but this is a folder.")
    }
    guard let decoded = String(validating: data, as: UTF8.self) else {
      throw QuireError(.corruptDocument, "It is not valid UTF-8 text.")
    }
    text = decoded
  }

  public override func contents(forType typeName: String) throws -> DocumentContents {
    .data(Data(text.utf8))
  }

  public override func fileAttributesToWrite(to url: URL, for saveOperation: SaveOperation) throws
    -> DocumentFileAttributes
  {
    DocumentFileAttributes(thumbnail: TextPreview.svg(text))
  }
}
